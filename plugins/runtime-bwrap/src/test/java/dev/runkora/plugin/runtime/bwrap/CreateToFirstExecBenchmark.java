package dev.runkora.plugin.runtime.bwrap;

import dev.runkora.conformance.runtime.TestRootFilesystem;
import dev.runkora.plugin.runtime.process.ProcessRuntimeProvider;
import dev.runkora.spi.core.PluginConfig;
import dev.runkora.spi.runtime.ExecRequest;
import dev.runkora.spi.runtime.NetworkMode;
import dev.runkora.spi.runtime.ResourceLimits;
import dev.runkora.spi.runtime.RuntimeContext;
import dev.runkora.spi.runtime.RuntimeProvider;
import dev.runkora.spi.runtime.SandboxRuntime;
import dev.runkora.spi.runtime.SandboxSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Figures, not assertions: how long {@code bwrap} takes from create to the end of a first {@code
 * true}, and a {@code true} in a warm sandbox, against the {@code process} runtime measured in the
 * same run on the same machine. Prints p50 and p99 over {@value #RUNS} runs and the ratios.
 */
class CreateToFirstExecBenchmark {

  private static final int WARMUP = 5;
  private static final int RUNS = 30;

  @Test
  void printCreateToFirstExecAndWarmExecFigures() throws Exception {
    var work = Files.createTempDirectory("kora-runtime-bench-");
    var root = TestRootFilesystem.host(work.resolve("root"));
    var mountsBefore = mountCount();
    var bwrap = measure(new BwrapRuntimeProvider(), work.resolve("bwrap"), root);
    var process = measure(new ProcessRuntimeProvider(), work.resolve("process"), root);
    var bareBwrap = timeCommand(bareBwrap(root));
    var spawnTrue = timeCommand(List.of("/bin/true"));
    var runc = runcBaseline(work.resolve("runc"));
    var loop = execLoop(work.resolve("loop"), root);

    System.out.printf(
        "%nruntime benchmark, %d runs each (ms):%n"
            + "  create->first exec  bwrap p50 %.2f p99 %.2f | process p50 %.2f p99 %.2f"
            + " | ratio p50 %.1fx%n"
            + "  warm exec of true   bwrap p50 %.2f p99 %.2f | process p50 %.2f p99 %.2f"
            + " | ratio p50 %.1fx%n"
            + "  delete              bwrap p50 %.2f p99 %.2f | process p50 %.2f p99 %.2f%n"
            + "  create alone        bwrap p50 %.2f p99 %.2f | process p50 %.2f p99 %.2f%n",
        RUNS,
        bwrap.createToExec().p50(),
        bwrap.createToExec().p99(),
        process.createToExec().p50(),
        process.createToExec().p99(),
        bwrap.createToExec().p50() / process.createToExec().p50(),
        bwrap.warmExec().p50(),
        bwrap.warmExec().p99(),
        process.warmExec().p50(),
        process.warmExec().p99(),
        bwrap.warmExec().p50() / process.warmExec().p50(),
        bwrap.delete().p50(),
        bwrap.delete().p99(),
        process.delete().p50(),
        process.delete().p99(),
        bwrap.create().p50(),
        bwrap.create().p99(),
        process.create().p50(),
        process.create().p99());
    System.out.printf(
        "  baselines           bare bwrap (same binds) true p50 %.2f p99 %.2f"
            + " | spawn true from Java p50 %.2f p99 %.2f%s%n"
            + "  ratios p50          create->first exec / bare bwrap %.1fx%s"
            + " | warm exec / spawn true %.1fx%n"
            + "  host mounts (lines of /proc/self/mountinfo) %d before, %d after%n",
        bareBwrap.p50(),
        bareBwrap.p99(),
        spawnTrue.p50(),
        spawnTrue.p99(),
        runc.map(r -> " | runc run p50 %.2f p99 %.2f".formatted(r.p50(), r.p99())).orElse(""),
        bwrap.createToExec().p50() / bareBwrap.p50(),
        runc.map(r -> " / runc run %.2fx".formatted(bwrap.createToExec().p50() / r.p50()))
            .orElse(""),
        bwrap.warmExec().p50() / spawnTrue.p50(),
        mountsBefore,
        mountCount());
    System.out.printf(
        "  CPU per sandbox     bwrap: create() on its thread %.2f ms;"
            + " per create+2 execs+delete: JVM %.1f ms, reaped children %.1f ms"
            + " | process: create() %.2f ms; JVM %.1f ms, children %.1f ms%n",
        bwrap.createThreadCpuMillis(),
        bwrap.jvmCpuMillis(),
        bwrap.childCpuMillis(),
        process.createThreadCpuMillis(),
        process.jvmCpuMillis(),
        process.childCpuMillis());
    System.out.printf(
        "  exec loop, %d of each interleaved in one sandbox: exec of true p50 %.2f p99 %.2f"
            + " | spawn true from Java p50 %.2f p99 %.2f | ratio p50 %.1fx p99 %.1fx%n",
        LOOP,
        loop[0].p50(),
        loop[0].p99(),
        loop[1].p50(),
        loop[1].p99(),
        loop[0].p50() / loop[1].p50(),
        loop[0].p99() / loop[1].p99());
    deleteUnlessMounted(work);
  }

  private static final int LOOP = 300;

  /**
   * The exec round trip on its own, once the JVM is warm: {@value #LOOP} execs of {@code true} in
   * one running sandbox, each beside a spawn of {@code true} straight from Java.
   */
  private static Percentiles[] execLoop(Path state, TestRootFilesystem root) throws Exception {
    Files.createDirectories(state);
    var provider = new BwrapRuntimeProvider();
    var exec = new ArrayList<Long>();
    var spawn = new ArrayList<Long>();
    try (var runtime =
        provider.create(
            PluginConfig.empty(), new RuntimeContext(state, System.getLogger("kora.bench")))) {
      var name = "bwrap-bench-loop";
      runtime.create(spec(name, root));
      try {
        for (int i = 0; i < LOOP + 50; i++) {
          var start = System.nanoTime();
          runTrue(runtime, name);
          var ran = System.nanoTime();
          new ProcessBuilder("/bin/true")
              .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
              .redirectOutput(ProcessBuilder.Redirect.DISCARD)
              .redirectErrorStream(true)
              .start()
              .waitFor();
          var spawned = System.nanoTime();
          if (i >= 50) {
            exec.add(ran - start);
            spawn.add(spawned - ran);
          }
        }
      } finally {
        runtime.delete(name);
      }
    }
    return new Percentiles[] {Percentiles.of(exec), Percentiles.of(spawn)};
  }

  /** Removes the benchmark's files, unless something is still mounted below them. */
  private static void deleteUnlessMounted(Path dir) throws java.io.IOException {
    var prefix = dir.toAbsolutePath() + "/";
    if (Files.readAllLines(Path.of("/proc/self/mountinfo")).stream()
        .anyMatch(line -> line.split(" ")[4].startsWith(prefix))) {
      System.out.println("left " + dir + ": mounts remain below it");
      return;
    }
    try (var paths = Files.walk(dir)) {
      for (var path : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
    }
  }

  private static long mountCount() throws java.io.IOException {
    return Files.readAllLines(Path.of("/proc/self/mountinfo")).size();
  }

  /** bubblewrap alone with the sandbox's namespaces and the root's binds, running {@code true}. */
  private static List<String> bareBwrap(TestRootFilesystem root) {
    var argv = new ArrayList<String>();
    argv.addAll(
        List.of(
            "/usr/bin/bwrap",
            "--unshare-user",
            "--unshare-pid",
            "--unshare-ipc",
            "--unshare-uts",
            "--unshare-cgroup-try",
            "--bind",
            root.root().toString(),
            "/",
            "--proc",
            "/proc",
            "--dev",
            "/dev",
            "--tmpfs",
            "/tmp"));
    for (var mount : root.mounts()) {
      argv.addAll(List.of("--ro-bind", mount.hostPath().toString(), mount.sandboxPath()));
    }
    argv.addAll(List.of("--remount-ro", "/", "--", "/usr/bin/true"));
    return argv;
  }

  private static Percentiles timeCommand(List<String> argv) throws Exception {
    var nanos = new ArrayList<Long>();
    for (int i = 0; i < WARMUP + RUNS; i++) {
      var start = System.nanoTime();
      var process =
          new ProcessBuilder(argv)
              .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
              .redirectOutput(ProcessBuilder.Redirect.DISCARD)
              .redirectErrorStream(true)
              .start();
      var exit = process.waitFor();
      if (exit != 0) {
        throw new IllegalStateException(argv + " exited " + exit);
      }
      if (i >= WARMUP) {
        nanos.add(System.nanoTime() - start);
      }
    }
    return Percentiles.of(nanos);
  }

  /**
   * {@code runc run} of the {@code host} template's root: an empty read-only root with the host's
   * {@code /usr} and {@code /etc} bound read-only and its top-level links reproduced. Empty when
   * runc is not installed.
   */
  private static java.util.Optional<Percentiles> runcBaseline(Path dir) throws Exception {
    var runc = Path.of("/usr/sbin/runc");
    if (!Files.isExecutable(runc)) {
      runc = Path.of("/usr/bin/runc");
    }
    if (!Files.isExecutable(runc)) {
      return java.util.Optional.empty();
    }
    var rootfs = Files.createDirectories(dir.resolve("rootfs"));
    var binds = new StringBuilder();
    for (var top : List.of("usr", "etc", "bin", "sbin", "lib", "lib32", "lib64", "libx32")) {
      var host = Path.of("/", top);
      if (Files.isSymbolicLink(host)) {
        Files.createSymbolicLink(rootfs.resolve(top), Files.readSymbolicLink(host));
      } else if (Files.isDirectory(host)) {
        Files.createDirectories(rootfs.resolve(top));
        binds.append(
            ",{\"destination\":\"/%s\",\"type\":\"bind\",\"source\":\"/%s\",\"options\":[\"rbind\",\"ro\"]}"
                .formatted(top, top));
      }
    }
    for (var top : List.of("proc", "dev", "tmp")) {
      Files.createDirectories(rootfs.resolve(top));
    }
    Files.writeString(dir.resolve("config.json"), RUNC_CONFIG.formatted(binds));
    var state = Files.createDirectories(dir.resolve("state"));
    var pid = ProcessHandle.current().pid();
    var nanos = new ArrayList<Long>();
    for (int i = 0; i < WARMUP + RUNS; i++) {
      var argv =
          List.of(
              runc.toString(),
              "--root",
              state.toString(),
              "run",
              "--bundle",
              dir.toString(),
              "kora-bench-" + pid + "-" + i);
      var start = System.nanoTime();
      var process =
          new ProcessBuilder(argv)
              .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
              .redirectOutput(ProcessBuilder.Redirect.PIPE)
              .redirectErrorStream(true)
              .start();
      var output = new String(process.getInputStream().readAllBytes());
      if (process.waitFor() != 0) {
        System.out.println("runc baseline skipped: " + output.strip());
        return java.util.Optional.empty();
      }
      if (i >= WARMUP) {
        nanos.add(System.nanoTime() - start);
      }
    }
    return java.util.Optional.of(Percentiles.of(nanos));
  }

  private static final String RUNC_CONFIG =
      """
      {"ociVersion":"1.0.2","process":{"terminal":false,"user":{"uid":0,"gid":0},
       "args":["/usr/bin/true"],"env":["PATH=/usr/bin:/bin"],"cwd":"/",
       "capabilities":{"bounding":["CAP_KILL"],"effective":["CAP_KILL"],"permitted":["CAP_KILL"]},
       "noNewPrivileges":true},
       "root":{"path":"rootfs","readonly":true},"hostname":"kora-bench",
       "mounts":[{"destination":"/proc","type":"proc","source":"proc"},
        {"destination":"/dev","type":"tmpfs","source":"tmpfs",
         "options":["nosuid","strictatime","mode=755","size=65536k"]},
        {"destination":"/tmp","type":"tmpfs","source":"tmpfs","options":["nosuid","nodev"]}%s],
       "linux":{"namespaces":[{"type":"pid"},{"type":"ipc"},{"type":"uts"},{"type":"mount"},
        {"type":"network"}]}}
      """;

  private record Percentiles(double p50, double p99) {
    static Percentiles of(List<Long> nanos) {
      var sorted = nanos.stream().mapToLong(Long::longValue).sorted().toArray();
      return new Percentiles(millis(sorted, 0.50), millis(sorted, 0.99));
    }

    private static double millis(long[] sorted, double quantile) {
      var index = (int) Math.ceil(quantile * sorted.length) - 1;
      return sorted[Math.max(0, index)] / 1e6;
    }
  }

  private record Figures(
      Percentiles create,
      Percentiles createToExec,
      Percentiles warmExec,
      Percentiles delete,
      double createThreadCpuMillis,
      double jvmCpuMillis,
      double childCpuMillis) {}

  /** The calling thread's time on a CPU so far, in nanoseconds (from its schedstat). */
  private static long threadCpuNanos() throws java.io.IOException {
    return Long.parseLong(
        Files.readString(Path.of("/proc/thread-self/schedstat")).strip().split(" ")[0]);
  }

  /**
   * This JVM's CPU time (user + system) and that of its reaped children, in clock ticks, from
   * /proc/self/stat.
   */
  private static long[] processCpuTicks() throws java.io.IOException {
    var stat = Files.readString(Path.of("/proc/self/stat"));
    var fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    // Fields 14 to 17 of stat(5); fields[0] is field 3.
    return new long[] {
      Long.parseLong(fields[11]) + Long.parseLong(fields[12]),
      Long.parseLong(fields[13]) + Long.parseLong(fields[14])
    };
  }

  /** Clock ticks per second: 100 on Linux for every architecture the JDK runs on. */
  private static final double TICK_MILLIS = 10.0;

  private static Figures measure(RuntimeProvider provider, Path state, TestRootFilesystem root)
      throws Exception {
    Files.createDirectories(state);
    var createToExec = new ArrayList<Long>();
    var create = new ArrayList<Long>();
    var warmExec = new ArrayList<Long>();
    var delete = new ArrayList<Long>();
    long createCpu = 0;
    long[] cpuBefore = null;
    try (var runtime =
        provider.create(
            PluginConfig.empty(), new RuntimeContext(state, System.getLogger("kora.bench")))) {
      for (int i = 0; i < WARMUP + RUNS; i++) {
        var name = provider.name() + "-bench-" + i;
        if (i == WARMUP) {
          cpuBefore = processCpuTicks();
        }
        var threadBefore = threadCpuNanos();
        var start = System.nanoTime();
        runtime.create(spec(name, root));
        var createdOnly = System.nanoTime();
        var threadAfter = threadCpuNanos();
        runTrue(runtime, name);
        var created = System.nanoTime();
        runTrue(runtime, name);
        var warm = System.nanoTime();
        runtime.delete(name);
        var deleted = System.nanoTime();
        if (i >= WARMUP) {
          createToExec.add(created - start);
          create.add(createdOnly - start);
          warmExec.add(warm - created);
          delete.add(deleted - warm);
          createCpu += threadAfter - threadBefore;
        }
      }
    }
    var cpuAfter = processCpuTicks();
    return new Figures(
        Percentiles.of(create),
        Percentiles.of(createToExec),
        Percentiles.of(warmExec),
        Percentiles.of(delete),
        createCpu / 1e6 / RUNS,
        (cpuAfter[0] - cpuBefore[0]) * TICK_MILLIS / RUNS,
        (cpuAfter[1] - cpuBefore[1]) * TICK_MILLIS / RUNS);
  }

  private static SandboxSpec spec(String name, TestRootFilesystem root) {
    return new SandboxSpec(
        name,
        root.root(),
        false,
        root.mounts(),
        ResourceLimits.none(),
        NetworkMode.EGRESS,
        Map.of("PATH", "/usr/bin:/bin"),
        "");
  }

  private static void runTrue(SandboxRuntime runtime, String name) throws Exception {
    try (var process = runtime.exec(name, ExecRequest.of("true"))) {
      process.stdout().readAllBytes();
      var exit = process.waitFor(Duration.ofSeconds(30));
      if (exit.isEmpty() || exit.getAsInt() != 0) {
        throw new IllegalStateException(
            "true failed in "
                + name
                + ": "
                + exit
                + " "
                + Arrays.toString(process.stderr().readAllBytes()));
      }
    }
  }
}
