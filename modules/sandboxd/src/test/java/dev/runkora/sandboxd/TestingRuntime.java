package dev.runkora.sandboxd;

import dev.runkora.spi.core.KoraException;
import dev.runkora.spi.runtime.ExecProcess;
import dev.runkora.spi.runtime.ExecRequest;
import dev.runkora.spi.runtime.MountSpec;
import dev.runkora.spi.runtime.RuntimeCapability;
import dev.runkora.spi.runtime.SandboxInfo;
import dev.runkora.spi.runtime.SandboxRuntime;
import dev.runkora.spi.runtime.SandboxSpec;
import dev.runkora.spi.runtime.SandboxStats;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A hand-written runtime for unit tests: sandboxes are entries in a map, and exec runs the command
 * as a host process in a per-sandbox directory (no isolation), so outputs, exit codes, stdin and
 * timeouts are real.
 */
final class TestingRuntime implements SandboxRuntime {

  record Box(SandboxSpec spec, List<MountSpec> liveMounts, Path dir, boolean running) {}

  final Map<String, Box> boxes = new ConcurrentHashMap<>();
  final AtomicInteger created = new AtomicInteger();
  final AtomicInteger deleted = new AtomicInteger();
  final AtomicInteger creating = new AtomicInteger();
  final AtomicInteger maxCreating = new AtomicInteger();
  private final Path root;
  private final Set<RuntimeCapability> capabilities;
  volatile KoraException failCreates;
  volatile Duration createDelay = Duration.ZERO;

  /** What {@link #stats} answers for a known sandbox; null for 1234 bytes and 0 CPU time. */
  volatile SandboxStats stats;

  TestingRuntime(Path root, Set<RuntimeCapability> capabilities) {
    this.root = root;
    this.capabilities = Set.copyOf(capabilities);
  }

  TestingRuntime(Path root) {
    this(
        root,
        EnumSet.of(
            RuntimeCapability.LIVE_MOUNT,
            RuntimeCapability.ADOPT,
            RuntimeCapability.STATS,
            RuntimeCapability.NETWORK_NONE));
  }

  @Override
  public Set<RuntimeCapability> capabilities() {
    return capabilities;
  }

  @Override
  public SandboxInfo create(SandboxSpec spec) {
    var failure = failCreates;
    if (failure != null) {
      throw failure;
    }
    int now = creating.incrementAndGet();
    maxCreating.accumulateAndGet(now, Math::max);
    try {
      if (!createDelay.isZero()) {
        Thread.sleep(createDelay);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      creating.decrementAndGet();
    }
    if (spec.network() == dev.runkora.spi.runtime.NetworkMode.EGRESS
        && !capabilities.contains(RuntimeCapability.NETWORK_EGRESS)) {
      throw KoraException.unsupported("testing", RuntimeCapability.NETWORK_EGRESS);
    }
    Path dir = root.resolve(spec.name());
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw KoraException.internal(e, "cannot create %s", dir);
    }
    if (boxes.putIfAbsent(spec.name(), new Box(spec, new ArrayList<>(), dir, true)) != null) {
      throw KoraException.alreadyExists("sandbox %s exists", spec.name());
    }
    created.incrementAndGet();
    return SandboxInfo.of(spec.name(), true, Instant.now());
  }

  /** Adds a sandbox as if an earlier process had made it. */
  void plant(String name, boolean running) {
    var spec =
        new SandboxSpec(
            name,
            root,
            true,
            List.of(),
            dev.runkora.spi.runtime.ResourceLimits.none(),
            dev.runkora.spi.runtime.NetworkMode.NONE,
            Map.of(),
            "/");
    boxes.put(name, new Box(spec, new ArrayList<>(), root, running));
  }

  @Override
  public ExecProcess exec(String name, ExecRequest request) {
    Box box = boxes.get(name);
    if (box == null || !box.running()) {
      throw KoraException.notFound("no sandbox %s", name);
    }
    var builder = new ProcessBuilder(request.argv());
    builder.directory(
        request.workingDirectory().isEmpty()
            ? box.dir().toFile()
            : Path.of(request.workingDirectory()).toFile());
    builder.environment().putAll(box.spec().env());
    builder.environment().putAll(request.env());
    Process process;
    try {
      process = builder.start();
    } catch (IOException e) {
      throw KoraException.invalidArgument(
          "cannot run %s: %s", request.argv().getFirst(), e.getMessage());
    }
    return new HostProcess(process, request.timeout());
  }

  @Override
  public void mount(String name, MountSpec mount) {
    Box box = boxes.get(name);
    if (box == null) {
      throw KoraException.notFound("no sandbox %s", name);
    }
    if (!Files.exists(mount.hostPath())) {
      throw KoraException.invalidArgument("no host path %s", mount.hostPath());
    }
    box.liveMounts().add(mount);
  }

  @Override
  public SandboxStats stats(String name) {
    if (!boxes.containsKey(name)) {
      throw KoraException.notFound("no sandbox %s", name);
    }
    var answer = stats;
    return answer != null ? answer : SandboxStats.of(1234, 0, 1, Instant.now());
  }

  @Override
  public void stop(String name) {
    boxes.computeIfPresent(name, (n, b) -> new Box(b.spec(), b.liveMounts(), b.dir(), false));
  }

  @Override
  public void delete(String name) {
    if (boxes.remove(name) != null) {
      deleted.incrementAndGet();
    }
  }

  @Override
  public List<SandboxInfo> list() {
    return boxes.values().stream()
        .map(b -> SandboxInfo.of(b.spec().name(), b.running(), Instant.EPOCH))
        .toList();
  }

  @Override
  public void close() {}

  private static final class HostProcess implements ExecProcess {
    private final Process process;
    private final Duration timeout;
    private volatile boolean timedOut;

    HostProcess(Process process, Duration timeout) {
      this.process = process;
      this.timeout = timeout;
    }

    @Override
    public OutputStream stdin() {
      return process.getOutputStream();
    }

    @Override
    public InputStream stdout() {
      return process.getInputStream();
    }

    @Override
    public InputStream stderr() {
      return process.getErrorStream();
    }

    @Override
    public OptionalInt waitFor(Duration wait) throws InterruptedException {
      long limit = wait.isZero() ? Long.MAX_VALUE : wait.toNanos();
      long ownLimit = timeout.isZero() ? Long.MAX_VALUE : timeout.toNanos();
      if (ownLimit <= limit) {
        if (!process.waitFor(ownLimit, TimeUnit.NANOSECONDS)) {
          timedOut = true;
          kill();
          process.waitFor();
        }
        return OptionalInt.of(process.exitValue());
      }
      if (limit == Long.MAX_VALUE) {
        return OptionalInt.of(process.waitFor());
      }
      return process.waitFor(limit, TimeUnit.NANOSECONDS)
          ? OptionalInt.of(process.exitValue())
          : OptionalInt.empty();
    }

    @Override
    public boolean timedOut() {
      return timedOut;
    }

    @Override
    public void kill() {
      process.descendants().forEach(ProcessHandle::destroyForcibly);
      process.destroyForcibly();
    }

    @Override
    public void close() {
      kill();
    }
  }
}
