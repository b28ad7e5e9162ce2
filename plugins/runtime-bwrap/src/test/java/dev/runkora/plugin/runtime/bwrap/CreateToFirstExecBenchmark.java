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
    var bwrap = measure(new BwrapRuntimeProvider(), work.resolve("bwrap"), root);
    var process = measure(new ProcessRuntimeProvider(), work.resolve("process"), root);

    System.out.printf(
        "%nruntime benchmark, %d runs each (ms):%n"
            + "  create->first exec  bwrap p50 %.2f p99 %.2f | process p50 %.2f p99 %.2f"
            + " | ratio p50 %.1fx%n"
            + "  warm exec of true   bwrap p50 %.2f p99 %.2f | process p50 %.2f p99 %.2f"
            + " | ratio p50 %.1fx%n"
            + "  delete              bwrap p50 %.2f p99 %.2f | process p50 %.2f p99 %.2f%n",
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
        process.delete().p99());
  }

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

  private record Figures(Percentiles createToExec, Percentiles warmExec, Percentiles delete) {}

  private static Figures measure(RuntimeProvider provider, Path state, TestRootFilesystem root)
      throws Exception {
    Files.createDirectories(state);
    var createToExec = new ArrayList<Long>();
    var warmExec = new ArrayList<Long>();
    var delete = new ArrayList<Long>();
    try (var runtime =
        provider.create(
            PluginConfig.empty(), new RuntimeContext(state, System.getLogger("kora.bench")))) {
      for (int i = 0; i < WARMUP + RUNS; i++) {
        var name = provider.name() + "-bench-" + i;
        var start = System.nanoTime();
        runtime.create(spec(name, root));
        runTrue(runtime, name);
        var created = System.nanoTime();
        runTrue(runtime, name);
        var warm = System.nanoTime();
        runtime.delete(name);
        var deleted = System.nanoTime();
        if (i >= WARMUP) {
          createToExec.add(created - start);
          warmExec.add(warm - created);
          delete.add(deleted - warm);
        }
      }
    }
    return new Figures(
        Percentiles.of(createToExec), Percentiles.of(warmExec), Percentiles.of(delete));
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
