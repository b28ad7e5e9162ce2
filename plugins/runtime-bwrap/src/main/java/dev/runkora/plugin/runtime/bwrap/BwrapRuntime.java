package dev.runkora.plugin.runtime.bwrap;

import dev.runkora.spi.core.ErrorKind;
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
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import java.util.regex.Pattern;

/**
 * Sandboxes made with bubblewrap. Each sandbox is:
 *
 * <ul>
 *   <li>a directory {@code <state>/sandboxes/<name>} holding its state file, its overlay root (the
 *       shared root filesystem below a private writable layer) and its live-mount area;
 *   <li>one cgroup per v1 controller, {@code <controller>/<parent>/<name>}, which every process of
 *       the sandbox joins before it enters;
 *   <li>a bubblewrap process tree: bubblewrap's init as pid 1 of new pid, mount, ipc, uts (and
 *       user, and for {@code none} network) namespaces, and the exec agent as its first child,
 *       which forks the commands of {@link #exec} (see {@link AgentExecProcess}). It runs in a
 *       session of its own with no pipe to the JVM, so it outlives the process that made it.
 * </ul>
 *
 * <p>The files are the truth: nothing about a sandbox is kept only in memory, so a new runtime
 * object on the same state directory (after a daemon restart) sees and drives the same sandboxes.
 * Calls on one sandbox are serialised by a per-name lock; calls on different sandboxes run in
 * parallel.
 */
final class BwrapRuntime implements SandboxRuntime {

  /** The names SandboxSpec accepts; any other name cannot be ours, nor a path to walk. */
  private static final Pattern VALID_NAME = Pattern.compile("[a-z0-9][a-z0-9_-]{0,62}");

  private static final Duration START_TIMEOUT = Duration.ofSeconds(10);
  private static final Duration STOP_TIMEOUT = Duration.ofSeconds(10);
  private static final String HOST_PATH = "/usr/sbin:/usr/bin:/sbin:/bin";

  private final BwrapSettings settings;
  private final Path sandboxes;
  private final CgroupV1 cgroups;
  private final HostMounts mounts;
  private final Fifo fifo;
  private final Set<RuntimeCapability> capabilities;
  private final System.Logger logger;
  private final ConcurrentHashMap<String, ReentrantLock> locks = new ConcurrentHashMap<>();

  private BwrapRuntime(
      BwrapSettings settings, Path sandboxes, CgroupV1 cgroups, System.Logger logger) {
    this.settings = settings;
    this.sandboxes = sandboxes;
    this.cgroups = cgroups;
    this.mounts = new HostMounts(settings);
    this.fifo = new Fifo(settings.mkfifo(), settings.nativeCalls());
    this.logger = logger;
    var found =
        EnumSet.of(
            RuntimeCapability.PROCESS_ISOLATION,
            RuntimeCapability.FILESYSTEM_ISOLATION,
            RuntimeCapability.NETWORK_NONE,
            RuntimeCapability.NETWORK_EGRESS,
            RuntimeCapability.LIVE_MOUNT,
            RuntimeCapability.ADOPT);
    found.addAll(cgroups.capabilities());
    this.capabilities = Set.copyOf(found);
  }

  /** Checks this machine and makes the runtime; see {@link BwrapRuntimeProvider#create}. */
  static BwrapRuntime start(BwrapSettings settings, RuntimeContext context) {
    settings.checkBinaries();
    if (!runningAsRoot()) {
      throw KoraException.unavailable(
          "runtime 'bwrap' must run as root: it makes cgroups and mounts on the host");
    }
    var sandboxes = context.stateDirectory().resolve("sandboxes");
    try {
      Files.createDirectories(sandboxes);
    } catch (IOException e) {
      throw KoraException.unavailable("cannot create %s: %s", sandboxes, e.getMessage());
    }
    HostMounts.checkOverlayPath(sandboxes.toAbsolutePath(), "the state directory");
    var cgroups = CgroupV1.probe(settings.cgroupRoot(), settings.cgroupParent());
    var dynmods =
        settings.favorDynmods()
            ? CgroupV1.favorDynamicModifications(settings)
            : "cgroup favordynmods not asked for";
    var runtime = new BwrapRuntime(settings, sandboxes.toAbsolutePath(), cgroups, context.logger());
    context
        .logger()
        .log(
            System.Logger.Level.INFO,
            "runtime bwrap: state in {0}, capabilities {1}, {2}",
            sandboxes,
            new java.util.TreeSet<>(runtime.capabilities),
            dynmods);
    return runtime;
  }

  @Override
  public Set<RuntimeCapability> capabilities() {
    return capabilities;
  }

  @Override
  public SandboxInfo create(SandboxSpec spec) {
    checkSupported(spec);
    checkSpec(spec);
    var lock = lock(spec.name());
    try {
      var layout = SandboxLayout.of(sandboxes, spec.name());
      try {
        Files.createDirectory(layout.dir());
      } catch (FileAlreadyExistsException e) {
        throw KoraException.alreadyExists("sandbox '%s' exists already", spec.name());
      } catch (IOException e) {
        throw KoraException.internal(e, "cannot create %s", layout.dir());
      }
      try {
        return start(spec, layout);
      } catch (IOException | RuntimeException e) {
        try {
          destroy(spec.name(), layout);
        } catch (RuntimeException cleanup) {
          e.addSuppressed(cleanup);
        }
        if (e instanceof KoraException kora) {
          throw kora;
        }
        throw KoraException.internal(
            e, "cannot create sandbox '%s': %s", spec.name(), e.getMessage());
      }
    } finally {
      lock.unlock();
    }
  }

  private SandboxInfo start(SandboxSpec spec, SandboxLayout layout) throws IOException {
    // A leftover cgroup of an earlier sandbox of this name that crashed half-way is empty.
    cgroups.remove(spec.name());
    cgroups.create(spec.name(), spec.limits());
    mounts.mountRoot(spec.rootFilesystem().toAbsolutePath(), layout);
    mounts.mountLiveArea(layout.live());
    Files.createDirectory(layout.execDir());
    fifo.make(layout.execDir().resolve("ctl"));
    fifo.make(layout.readyPipe());
    var state =
        new SandboxState(
            spec.name(),
            Instant.now(),
            0,
            0,
            settings.userNamespace(),
            BwrapCommandLine.baseEnvironment(spec.env()),
            spec.workingDirectory());
    state.store(layout.stateFile());

    // setsid execs bubblewrap in place (a child of the JVM leads no process group), so the
    // launcher is bubblewrap itself, in a session of its own that terminal signals do not reach.
    var argv = new ArrayList<String>();
    argv.add(settings.setsid().toString());
    argv.addAll(BwrapCommandLine.create(settings, spec, layout));
    var builder = new ProcessBuilder(argv);
    builder.environment().clear();
    builder.environment().put("PATH", HOST_PATH);
    // No pipes to the JVM: the sandbox must not die of SIGPIPE when the JVM that made it exits.
    builder.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
    builder.redirectOutput(layout.logFile().toFile());
    builder.redirectErrorStream(true);
    long init;
    // Opened before bubblewrap starts, so the agent's report always finds a reader.
    try (var ready = openReadyPipe(layout, StandardOpenOption.READ);
        var wake = openReadyPipe(layout, StandardOpenOption.WRITE)) {
      var launcher = builder.start();
      init = awaitInit(launcher, layout, ready, wake);
      // The agent joins the sandbox's cgroups now, before the first request can make it fork:
      // every command is its descendant. bubblewrap and its init stay where they are; they run
      // nothing of the sandbox's, and each move into a cgroup costs the kernel an RCU grace
      // period (about a millisecond here), per process and per hierarchy. Joining here rather
      // than in a shell before bubblewrap saves that shell's start on every create.
      var agent = ProcStat.children(init);
      if (agent.size() != 1) {
        throw new IOException(
            "the sandbox's pid 1 has " + agent.size() + " children, not its agent");
      }
      cgroups.join(spec.name(), agent);
    }
    var startTicks =
        ProcStat.startTicks(init)
            .orElseThrow(() -> new IOException("the sandbox's init " + init + " ended at once"));
    state = state.withInit(init, startTicks);
    state.store(layout.stateFile());
    logger.log(System.Logger.Level.DEBUG, "sandbox {0} runs with init pid {1}", spec.name(), init);
    return SandboxInfo.of(spec.name(), true, state.createdAt());
  }

  /**
   * Opens the ready pipe for reading or for writing. The reading end is opened first and
   * read-write, so that no open waits for the other end and the pipe never reads as ended; the
   * writing end is a channel of its own, since a channel's write waits for its own pending read.
   */
  private static FileChannel openReadyPipe(SandboxLayout layout, StandardOpenOption mode)
      throws IOException {
    return mode == StandardOpenOption.READ
        ? FileChannel.open(
            layout.readyPipe(),
            StandardOpenOption.READ,
            StandardOpenOption.WRITE,
            LinkOption.NOFOLLOW_LINKS)
        : FileChannel.open(layout.readyPipe(), StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);
  }

  /**
   * Waits, blocked on the ready pipe and using no CPU, until the sandbox is ready: its exec agent
   * writes {@link BwrapCommandLine#READY} there once it holds its control pipe open (a request
   * written before would be lost). bubblewrap runs the agent only after every mount is in place and
   * after it has written its report with the host pid of the sandbox's pid 1. Should bubblewrap end
   * first, or the agent not report within {@link #START_TIMEOUT}, this runtime writes a line of its
   * own to the pipe to end the wait.
   */
  private long awaitInit(
      Process launcher, SandboxLayout layout, FileChannel ready, FileChannel wake)
      throws IOException {
    var waiting = new AtomicBoolean(true);
    launcher.onExit().thenRun(() -> signal(wake, waiting, LAUNCHER_ENDED));
    CompletableFuture.delayedExecutor(
            START_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS, Runnable::run)
        .execute(() -> signal(wake, waiting, TIMED_OUT));
    String line;
    try {
      line = readLine(ready);
    } finally {
      waiting.set(false);
    }
    switch (line) {
      case BwrapCommandLine.READY -> {
        // bubblewrap's only child is the sandbox's pid 1 (its init, the agent's parent).
        var children = ProcStat.children(launcher.pid());
        if (children.size() != 1) {
          throw new IOException(
              "bubblewrap has " + children.size() + " children, not the sandbox's pid 1 alone");
        }
        return children.getFirst();
      }
      case LAUNCHER_ENDED ->
          throw new IOException(
              "bubblewrap failed (exit " + launcher.exitValue() + "): " + readLog(layout));
      case TIMED_OUT -> {
        launcher.destroyForcibly();
        throw new IOException(
            "the sandbox's exec agent did not report ready within " + START_TIMEOUT);
      }
      default -> throw new IOException("unexpected report on the ready pipe: '" + line + "'");
    }
  }

  private static final String LAUNCHER_ENDED = "launcher-ended";
  private static final String TIMED_OUT = "timed-out";

  /** Ends a wait on the ready pipe with a line of our own, unless the wait is over already. */
  private static void signal(FileChannel wake, AtomicBoolean waiting, String line) {
    if (!waiting.get()) {
      return;
    }
    try {
      wake.write(ByteBuffer.wrap((line + "\n").getBytes(StandardCharsets.US_ASCII)));
    } catch (IOException e) {
      // Closed: the wait ended meanwhile.
    }
  }

  /** Reads one line (short writes of whole lines, which a pipe keeps whole) from the pipe. */
  private static String readLine(FileChannel ready) throws IOException {
    var buffer = ByteBuffer.allocate(64);
    while (true) {
      if (ready.read(buffer) < 0) {
        throw new IOException("the ready pipe ended");
      }
      for (int i = 0; i < buffer.position(); i++) {
        if (buffer.get(i) == '\n') {
          return new String(buffer.array(), 0, i, StandardCharsets.US_ASCII);
        }
      }
      if (!buffer.hasRemaining()) {
        throw new IOException("unexpected report on the ready pipe");
      }
    }
  }

  private static String readLog(SandboxLayout layout) {
    try {
      return Files.readString(layout.logFile(), StandardCharsets.UTF_8).strip();
    } catch (IOException e) {
      return "(no output)";
    }
  }

  @Override
  public ExecProcess exec(String name, ExecRequest request) {
    var state = running(name);
    if (request.workingDirectory().contains("\0")
        || request.argv().stream().anyMatch(argument -> argument.contains("\0"))) {
      throw KoraException.invalidArgument("an argument or the working directory contains NUL");
    }
    var requested =
        !request.workingDirectory().isEmpty()
            ? request.workingDirectory()
            : state.workingDirectory().isEmpty() ? "/" : state.workingDirectory();
    // Lexically, so that the check below never walks above the sandbox's root on the host.
    var workingDirectory = Path.of(requested).normalize().toString();
    var sandboxRoot = Path.of("/proc", Long.toString(state.initPid()), "root");
    if (!workingDirectory.startsWith("/")
        || !Files.isDirectory(inside(sandboxRoot, workingDirectory))) {
      throw KoraException.invalidArgument(
          "working directory '%s' does not exist in sandbox '%s'", workingDirectory, name);
    }
    var env = new TreeMap<>(state.env());
    env.putAll(request.env());
    checkEnvironment(env);
    var program = request.argv().getFirst();
    var resolved =
        resolveProgram(sandboxRoot, workingDirectory, program, env.get("PATH"))
            .orElseThrow(
                () ->
                    KoraException.invalidArgument(
                        "program '%s' does not exist in sandbox '%s'", program, name));
    // The only way in: the agent runs inside every namespace and cgroup of the sandbox, without
    // CAP_SYS_ADMIN, so no command can undo a read-only bind.
    try {
      return AgentExecProcess.start(
          SandboxLayout.of(sandboxes, name).execDir(),
          state.initPid(),
          BwrapCommandLine.agentScript(workingDirectory, env, resolved, request.argv()),
          request.timeout(),
          fifo);
    } catch (IOException e) {
      throw KoraException.internal(
          e, "cannot start a command in sandbox '%s': %s", name, e.getMessage());
    }
  }

  private static void checkEnvironment(Map<String, String> env) {
    for (var entry : env.entrySet()) {
      var key = entry.getKey();
      if (key.isEmpty()
          || key.contains("=")
          || key.contains("\0")
          || entry.getValue().contains("\0")) {
        throw KoraException.invalidArgument("environment variable name '%s' is not valid", key);
      }
    }
  }

  /**
   * Looks the program up the way {@code execvp} would, but from the host through the sandbox's
   * root, and returns the path to run: the program itself when it names a path, else the first
   * match on the PATH. The command then runs exactly that file, never a busybox applet of the same
   * name. The last component is not followed, so a link is enough: its target is resolved only
   * inside the sandbox, where absolute links point elsewhere than they do from here.
   */
  private static Optional<String> resolveProgram(
      Path sandboxRoot, String workingDirectory, String program, String path) {
    if (program.contains("/")) {
      var absolute = program.startsWith("/") ? program : workingDirectory + "/" + program;
      return Files.exists(inside(sandboxRoot, absolute), LinkOption.NOFOLLOW_LINKS)
          ? Optional.of(program)
          : Optional.empty();
    }
    var directories = path == null ? BwrapCommandLine.DEFAULT_PATH : path;
    for (var directory : directories.split(":")) {
      var candidate = directory + "/" + program;
      if (directory.startsWith("/")
          && Files.exists(inside(sandboxRoot, candidate), LinkOption.NOFOLLOW_LINKS)) {
        return Optional.of(candidate);
      }
    }
    return Optional.empty();
  }

  private static Path inside(Path sandboxRoot, String absolute) {
    return Path.of(sandboxRoot + absolute);
  }

  @Override
  public void mount(String name, MountSpec mount) {
    require(RuntimeCapability.LIVE_MOUNT);
    var lock = lock(name);
    try {
      var state = running(name);
      if (!Files.exists(mount.hostPath())) {
        throw KoraException.invalidArgument("host path %s does not exist", mount.hostPath());
      }
      checkSandboxPath(mount.sandboxPath());
      var layout = SandboxLayout.of(sandboxes, name);
      boolean directory = Files.isDirectory(mount.hostPath());
      Path target;
      try {
        target = nextLiveTarget(layout.live(), directory);
        mounts.bind(mount.hostPath().toAbsolutePath(), target);
      } catch (IOException e) {
        throw KoraException.internal(e, "cannot bind %s for sandbox '%s'", mount.hostPath(), name);
      }
      var inside = new ArrayList<>(BwrapCommandLine.inside(settings, state));
      inside.addAll(
          List.of(
              BwrapCommandLine.BUSYBOX,
              "sh",
              "-c",
              "set -e; b="
                  + BwrapCommandLine.BUSYBOX
                  + ";"
                  + " if [ \"$4\" = dir ]; then $b mkdir -p \"$1\";"
                  + " elif [ ! -e \"$1\" ]; then $b mkdir -p \"$($b dirname \"$1\")\"; $b touch \"$1\"; fi;"
                  + " $b mount --bind \"$2\" \"$1\";"
                  + " if [ \"$3\" = ro ]; then $b mount -o remount,bind,ro \"$1\"; fi",
              "kora-mount",
              mount.sandboxPath(),
              BwrapCommandLine.LIVE + "/" + target.getFileName(),
              mount.readOnly() ? "ro" : "rw",
              directory ? "dir" : "file"));
      var result = HostCommand.run(inside);
      if (!result.succeeded()) {
        mounts.unmountAllBelow(target);
        deleteQuietly(target);
        throw KoraException.invalidArgument(
            "cannot mount %s at %s in sandbox '%s': %s",
            mount.hostPath(), mount.sandboxPath(), name, result.output());
      }
    } finally {
      lock.unlock();
    }
  }

  private static Path nextLiveTarget(Path live, boolean directory) throws IOException {
    for (int i = 0; ; i++) {
      var candidate = live.resolve("m" + i);
      try {
        if (directory) {
          Files.createDirectory(candidate);
        } else {
          Files.createFile(candidate);
        }
        return candidate;
      } catch (FileAlreadyExistsException e) {
        // Taken by an earlier mount: try the next one.
      }
    }
  }

  @Override
  public SandboxStats stats(String name) {
    require(RuntimeCapability.STATS);
    var state = state(name).orElseThrow(() -> notFound(name));
    var now = Instant.now();
    if (!ProcStat.isAlive(state.initPid(), state.initStartTicks())) {
      return SandboxStats.of(0, 0, 0, now);
    }
    var memory = cgroups.read("memory", name, "memory.usage_in_bytes");
    var cpu = cgroups.read("cpuacct", name, "cpuacct.usage");
    var pids = cgroups.read("pids", name, "pids.current");
    if (memory.isEmpty() || cpu.isEmpty() || pids.isEmpty()) {
      return SandboxStats.unmeasured(now);
    }
    return SandboxStats.of(memory.getAsLong(), cpu.getAsLong(), (int) pids.getAsLong(), now);
  }

  @Override
  public void stop(String name) {
    if (!VALID_NAME.matcher(name).matches()) {
      throw notFound(name);
    }
    var lock = lock(name);
    try {
      var layout = SandboxLayout.of(sandboxes, name);
      if (!Files.isDirectory(layout.dir())) {
        throw notFound(name);
      }
      kill(name, state(name));
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void delete(String name) {
    if (!VALID_NAME.matcher(name).matches()) {
      return; // Never made: deleting an unknown name succeeds.
    }
    var lock = lock(name);
    try {
      destroy(name, SandboxLayout.of(sandboxes, name));
    } finally {
      lock.unlock();
      locks.remove(name, lock);
    }
  }

  /**
   * Takes a sandbox apart in the only safe order: processes first (nothing may hold a mount or a
   * cgroup), then mounts, then cgroups, then files. Files are removed only once no mount is left
   * below the directory: deleting through a bind would delete the host's files.
   */
  private void destroy(String name, SandboxLayout layout) {
    kill(name, Files.isDirectory(layout.dir()) ? state(name) : Optional.empty());
    var leftMounts = mounts.unmountAllBelow(layout.dir());
    var leftCgroups = removeCgroups(name);
    if (!leftMounts.isEmpty()) {
      throw KoraException.internal(
          null,
          "sandbox '%s' is not fully removed: mounts %s remain (cgroups left: %s)",
          name,
          leftMounts,
          leftCgroups);
    }
    try {
      deleteTree(layout.dir());
    } catch (IOException e) {
      throw KoraException.internal(e, "sandbox '%s': cannot remove %s", name, layout.dir());
    }
    if (!leftCgroups.isEmpty()) {
      throw KoraException.internal(
          null, "sandbox '%s' is not fully removed: cgroups %s remain", name, leftCgroups);
    }
  }

  private List<Path> removeCgroups(String name) {
    var deadline = System.nanoTime() + STOP_TIMEOUT.toNanos();
    var left = cgroups.remove(name);
    while (!left.isEmpty() && System.nanoTime() < deadline) {
      killAll(cgroups.processes(name));
      sleep(Duration.ofMillis(5));
      left = cgroups.remove(name);
    }
    return left;
  }

  /**
   * Kills every process of a sandbox. Its pid 1 first: the kernel then kills the whole pid
   * namespace, and bubblewrap's outer process, which waits for it, reaps it and exits by itself (so
   * no zombie is left for the host's init to collect). Then whatever else sits in its cgroups,
   * should it linger. Waits until they are gone.
   */
  private void kill(String name, Optional<SandboxState> state) {
    var init = state.filter(s -> ProcStat.isAlive(s.initPid(), s.initStartTicks()));
    init.flatMap(s -> ProcessHandle.of(s.initPid())).ifPresent(ProcessHandle::destroyForcibly);
    var deadline = System.nanoTime() + STOP_TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      boolean initGone =
          init.map(s -> !ProcStat.isAlive(s.initPid(), s.initStartTicks())).orElse(true);
      if (initGone) {
        var inCgroups = cgroups.processes(name);
        if (inCgroups.isEmpty()) {
          return;
        }
        killAll(inCgroups);
      }
      sleep(Duration.ofMillis(1));
    }
    throw KoraException.internal(null, "the processes of sandbox '%s' did not end", name);
  }

  private static void killAll(Set<Long> pids) {
    for (var pid : pids) {
      ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
    }
  }

  @Override
  public List<SandboxInfo> list() {
    var result = new ArrayList<SandboxInfo>();
    try (var dirs = Files.list(sandboxes)) {
      for (var dir : dirs.sorted().toList()) {
        var name = dir.getFileName().toString();
        var state = state(name);
        if (state.isPresent()) {
          var s = state.get();
          result.add(
              SandboxInfo.of(
                  name, ProcStat.isAlive(s.initPid(), s.initStartTicks()), s.createdAt()));
        } else if (Files.isDirectory(dir)) {
          // A create that crashed before its state was written: listed so it can be deleted.
          result.add(SandboxInfo.of(name, false, Files.getLastModifiedTime(dir).toInstant()));
        }
      }
    } catch (IOException | UncheckedIOException e) {
      throw KoraException.unavailable("cannot list sandboxes in %s: %s", sandboxes, e.getMessage());
    }
    return result;
  }

  @Override
  public void close() {
    // Nothing is held: sandboxes and their state stay for the next runtime object.
  }

  private Optional<SandboxState> state(String name) {
    if (!VALID_NAME.matcher(name).matches()) {
      return Optional.empty();
    }
    var file = SandboxLayout.of(sandboxes, name).stateFile();
    try {
      return Optional.of(SandboxState.load(file));
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException e) {
      logger.log(System.Logger.Level.WARNING, "unreadable state of sandbox {0}: {1}", name, e);
      return Optional.empty();
    }
  }

  private SandboxState running(String name) {
    var state = state(name).orElseThrow(() -> notFound(name));
    if (!ProcStat.isAlive(state.initPid(), state.initStartTicks())) {
      throw KoraException.notFound("sandbox '%s' is not running", name);
    }
    return state;
  }

  private static KoraException notFound(String name) {
    return KoraException.notFound("no sandbox named '%s'", name);
  }

  private void require(RuntimeCapability capability) {
    if (!capabilities.contains(capability)) {
      throw KoraException.unsupported(BwrapSettings.NAME, capability);
    }
  }

  private void checkSupported(SandboxSpec spec) {
    var limits = spec.limits();
    if (limits.cpus() > 0) {
      require(RuntimeCapability.CPU_LIMIT);
    }
    if (limits.memoryBytes() > 0) {
      require(RuntimeCapability.MEMORY_LIMIT);
    }
    if (limits.pids() > 0) {
      require(RuntimeCapability.PIDS_LIMIT);
    }
    if (limits.diskBytes() > 0) {
      require(RuntimeCapability.DISK_LIMIT);
    }
    require(
        spec.network() == NetworkMode.NONE
            ? RuntimeCapability.NETWORK_NONE
            : RuntimeCapability.NETWORK_EGRESS);
  }

  private static void checkSpec(SandboxSpec spec) {
    if (!Files.isDirectory(spec.rootFilesystem())) {
      throw KoraException.invalidArgument(
          "root filesystem %s is not a directory", spec.rootFilesystem());
    }
    HostMounts.checkOverlayPath(spec.rootFilesystem().toAbsolutePath(), "root filesystem");
    for (var mount : spec.mounts()) {
      if (!Files.exists(mount.hostPath())) {
        throw KoraException.invalidArgument("mount source %s does not exist", mount.hostPath());
      }
      checkSandboxPath(mount.sandboxPath());
    }
    if (!spec.workingDirectory().isEmpty() && !spec.workingDirectory().startsWith("/")) {
      throw KoraException.invalidArgument(
          "working directory '%s' is not absolute", spec.workingDirectory());
    }
    checkEnvironment(spec.env());
  }

  private static void checkSandboxPath(String path) {
    var normal = Path.of(path).normalize().toString();
    if (normal.equals("/") || !normal.equals(path) || path.startsWith("/dev/.kora")) {
      throw KoraException.invalidArgument(
          "sandbox path '%s' must be a normalised absolute path other than / and /dev/.kora", path);
    }
  }

  private ReentrantLock lock(String name) {
    while (true) {
      var lock = locks.computeIfAbsent(name, key -> new ReentrantLock());
      lock.lock();
      if (locks.get(name) == lock) {
        return lock;
      }
      // delete() retired this lock while we waited: take the current one.
      lock.unlock();
    }
  }

  private static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    try (var paths = Files.walk(dir)) {
      for (var path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
    }
  }

  private static void deleteQuietly(Path path) {
    try {
      Files.deleteIfExists(path);
    } catch (IOException e) {
      // Left for delete(), which removes the whole directory.
    }
  }

  private static void sleep(Duration duration) {
    try {
      Thread.sleep(duration);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new KoraException(ErrorKind.INTERNAL, "interrupted");
    }
  }

  private static boolean runningAsRoot() {
    try {
      for (var line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("Uid:")) {
          return line.split("\\s+")[2].equals("0");
        }
      }
    } catch (IOException e) {
      return false;
    }
    return false;
  }
}
