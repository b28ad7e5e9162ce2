package dev.runkora.plugin.runtime.process;

import dev.runkora.spi.core.KoraException;
import dev.runkora.spi.runtime.ExecProcess;
import dev.runkora.spi.runtime.ExecRequest;
import dev.runkora.spi.runtime.MountSpec;
import dev.runkora.spi.runtime.NetworkMode;
import dev.runkora.spi.runtime.RuntimeCapability;
import dev.runkora.spi.runtime.RuntimeContext;
import dev.runkora.spi.runtime.SandboxInfo;
import dev.runkora.spi.runtime.SandboxRuntime;
import dev.runkora.spi.runtime.SandboxSpec;
import dev.runkora.spi.runtime.SandboxStats;
import java.io.IOException;
import java.io.Reader;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Sandboxes that are only a working directory, {@code <state>/sandboxes/<name>/work}, and a
 * recorded base environment. Commands are child processes of the JVM on the host, seeing the whole
 * host. Nothing is enforced, so nothing but {@link RuntimeCapability#NETWORK_EGRESS} (the host's
 * own network) and {@link RuntimeCapability#ADOPT} (the directory survives restarts) is declared.
 *
 * <p>A sandbox has no process of its own: "running" means created and not stopped. Commands are
 * tracked in memory so that stop() and delete() can kill them; those of an earlier JVM are not.
 */
final class ProcessRuntime implements SandboxRuntime {

  static final String NAME = "process";
  static final Set<RuntimeCapability> CAPABILITIES =
      Set.of(RuntimeCapability.NETWORK_EGRESS, RuntimeCapability.ADOPT);

  /** The names SandboxSpec accepts; any other name cannot be ours, nor a path to walk. */
  private static final java.util.regex.Pattern VALID_NAME =
      java.util.regex.Pattern.compile("[a-z0-9][a-z0-9_-]{0,62}");

  private final Path sandboxes;
  private final Map<String, Set<ExecProcess>> commands = new ConcurrentHashMap<>();

  ProcessRuntime(RuntimeContext context) {
    this.sandboxes = context.stateDirectory().toAbsolutePath().resolve("sandboxes");
    try {
      Files.createDirectories(sandboxes);
    } catch (IOException e) {
      throw KoraException.unavailable("cannot create %s: %s", sandboxes, e.getMessage());
    }
  }

  @Override
  public Set<RuntimeCapability> capabilities() {
    return CAPABILITIES;
  }

  @Override
  public synchronized SandboxInfo create(SandboxSpec spec) {
    checkSupported(spec);
    if (!Files.isDirectory(spec.rootFilesystem())) {
      throw KoraException.invalidArgument(
          "root filesystem %s is not a directory", spec.rootFilesystem());
    }
    for (var mount : spec.mounts()) {
      if (!Files.exists(mount.hostPath())) {
        throw KoraException.invalidArgument("mount source %s does not exist", mount.hostPath());
      }
      if (!mount.hostPath().toAbsolutePath().normalize().toString().equals(mount.sandboxPath())) {
        // The command sees the host: a bind to another path cannot be made without isolation.
        throw KoraException.unsupported(NAME, RuntimeCapability.FILESYSTEM_ISOLATION);
      }
    }
    if (!spec.workingDirectory().isEmpty()
        && !Files.isDirectory(Path.of(spec.workingDirectory()))) {
      throw KoraException.invalidArgument(
          "working directory %s does not exist on this host", spec.workingDirectory());
    }
    var dir = sandboxes.resolve(spec.name());
    try {
      Files.createDirectory(dir);
    } catch (FileAlreadyExistsException e) {
      throw KoraException.alreadyExists("sandbox '%s' exists already", spec.name());
    } catch (IOException e) {
      throw KoraException.internal(e, "cannot create %s", dir);
    }
    var state = new State(spec.name(), Instant.now(), false, spec.env(), spec.workingDirectory());
    try {
      Files.createDirectory(dir.resolve("work"));
      state.store(dir);
    } catch (IOException e) {
      deleteTree(dir);
      throw KoraException.internal(e, "cannot create sandbox '%s'", spec.name());
    }
    return SandboxInfo.of(spec.name(), true, state.createdAt());
  }

  @Override
  public ExecProcess exec(String name, ExecRequest request) {
    var state = state(name).filter(s -> !s.stopped()).orElseThrow(() -> notRunning(name));
    var directory =
        !request.workingDirectory().isEmpty()
            ? Path.of(request.workingDirectory())
            : state.workingDirectory().isEmpty()
                ? sandboxes.resolve(name).resolve("work")
                : Path.of(state.workingDirectory());
    if (!Files.isDirectory(directory)) {
      throw KoraException.invalidArgument("working directory %s does not exist", directory);
    }
    var env = new TreeMap<>(state.env());
    env.putAll(request.env());
    var program = request.argv().getFirst();
    if (!programExists(directory, program, env.getOrDefault("PATH", "/usr/bin:/bin"))) {
      throw KoraException.invalidArgument("program '%s' does not exist", program);
    }
    var builder = new ProcessBuilder(request.argv()).directory(directory.toFile());
    builder.environment().clear();
    builder.environment().putAll(env);
    try {
      var process = new ChildExecProcess(builder.start(), request.timeout());
      var tracked = commands.computeIfAbsent(name, key -> ConcurrentHashMap.newKeySet());
      tracked.add(process);
      return process;
    } catch (IOException e) {
      throw KoraException.internal(e, "cannot start '%s' in sandbox '%s'", program, name);
    }
  }

  private static boolean programExists(Path directory, String program, String path) {
    if (program.contains("/")) {
      return Files.isExecutable(directory.resolve(program));
    }
    for (var entry : path.split(":")) {
      if (!entry.isEmpty() && Files.isExecutable(Path.of(entry).resolve(program))) {
        return true;
      }
    }
    return false;
  }

  @Override
  public void mount(String name, MountSpec mount) {
    throw KoraException.unsupported(NAME, RuntimeCapability.LIVE_MOUNT);
  }

  @Override
  public SandboxStats stats(String name) {
    throw KoraException.unsupported(NAME, RuntimeCapability.STATS);
  }

  @Override
  public synchronized void stop(String name) {
    var state =
        state(name).orElseThrow(() -> KoraException.notFound("no sandbox named '%s'", name));
    killCommands(name);
    if (!state.stopped()) {
      try {
        state.asStopped().store(sandboxes.resolve(name));
      } catch (IOException e) {
        throw KoraException.internal(e, "cannot record that sandbox '%s' stopped", name);
      }
    }
  }

  @Override
  public synchronized void delete(String name) {
    if (!VALID_NAME.matcher(name).matches()) {
      return; // Never made: deleting an unknown name succeeds.
    }
    killCommands(name);
    deleteTree(sandboxes.resolve(name));
  }

  private void killCommands(String name) {
    var tracked = commands.remove(name);
    if (tracked != null) {
      tracked.forEach(ExecProcess::close);
    }
  }

  @Override
  public List<SandboxInfo> list() {
    var result = new ArrayList<SandboxInfo>();
    try (var dirs = Files.list(sandboxes)) {
      for (var dir : dirs.sorted().toList()) {
        state(dir.getFileName().toString())
            .ifPresent(s -> result.add(SandboxInfo.of(s.name(), !s.stopped(), s.createdAt())));
      }
    } catch (IOException | UncheckedIOException e) {
      throw KoraException.unavailable("cannot list %s: %s", sandboxes, e.getMessage());
    }
    return result;
  }

  @Override
  public void close() {
    // Commands keep running; sandboxes stay for the next runtime object.
  }

  private Optional<State> state(String name) {
    if (!VALID_NAME.matcher(name).matches()) {
      return Optional.empty();
    }
    try {
      return Optional.of(State.load(sandboxes.resolve(name)));
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException e) {
      throw KoraException.internal(e, "unreadable state of sandbox '%s'", name);
    }
  }

  private static KoraException notRunning(String name) {
    return KoraException.notFound("no running sandbox named '%s'", name);
  }

  private static void checkSupported(SandboxSpec spec) {
    var limits = spec.limits();
    if (limits.cpus() > 0) {
      throw KoraException.unsupported(NAME, RuntimeCapability.CPU_LIMIT);
    }
    if (limits.memoryBytes() > 0) {
      throw KoraException.unsupported(NAME, RuntimeCapability.MEMORY_LIMIT);
    }
    if (limits.pids() > 0) {
      throw KoraException.unsupported(NAME, RuntimeCapability.PIDS_LIMIT);
    }
    if (limits.diskBytes() > 0) {
      throw KoraException.unsupported(NAME, RuntimeCapability.DISK_LIMIT);
    }
    if (spec.network() == NetworkMode.NONE) {
      throw KoraException.unsupported(NAME, RuntimeCapability.NETWORK_NONE);
    }
  }

  private static void deleteTree(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (var paths = Files.walk(dir)) {
      for (var path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
    } catch (IOException | UncheckedIOException e) {
      throw KoraException.internal(e, "cannot remove %s", dir);
    }
  }

  /** What is recorded of a sandbox, in {@code sandbox.properties}, written crash-safely. */
  record State(
      String name,
      Instant createdAt,
      boolean stopped,
      Map<String, String> env,
      String workingDirectory) {

    State {
      env = Map.copyOf(env);
    }

    State asStopped() {
      return new State(name, createdAt, true, env, workingDirectory);
    }

    void store(Path dir) throws IOException {
      var properties = new Properties();
      properties.setProperty("name", name);
      properties.setProperty("createdAt", createdAt.toString());
      properties.setProperty("stopped", Boolean.toString(stopped));
      properties.setProperty("workingDirectory", workingDirectory);
      env.forEach((key, value) -> properties.setProperty("env." + key, value));
      var text = new StringWriter();
      properties.store(text, "kora process sandbox");
      var temporary = dir.resolve("sandbox.properties.tmp");
      Files.writeString(temporary, text.toString(), StandardCharsets.UTF_8);
      Files.move(temporary, dir.resolve("sandbox.properties"), StandardCopyOption.ATOMIC_MOVE);
    }

    static State load(Path dir) throws IOException {
      var properties = new Properties();
      try (Reader reader =
          Files.newBufferedReader(dir.resolve("sandbox.properties"), StandardCharsets.UTF_8)) {
        properties.load(reader);
      }
      var env = new TreeMap<String, String>();
      for (var key : properties.stringPropertyNames()) {
        if (key.startsWith("env.")) {
          env.put(key.substring(4), properties.getProperty(key));
        }
      }
      return new State(
          properties.getProperty("name"),
          Instant.parse(properties.getProperty("createdAt")),
          Boolean.parseBoolean(properties.getProperty("stopped")),
          env,
          properties.getProperty("workingDirectory", ""));
    }
  }
}
