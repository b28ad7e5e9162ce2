package dev.runkora.plugin.storage.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.runkora.spi.core.PluginConfig;
import dev.runkora.spi.storage.AccessMode;
import dev.runkora.spi.storage.StorageContext;
import dev.runkora.spi.storage.WorkspaceRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Prints what a workspace costs in each mode: provision (first call), provision again (the
 * idempotent call a reconciler makes every pass), and release. Figures, not assertions: the only
 * assertion is that every workspace was released.
 */
class LocalStorageBenchmarkIT {

  private static final long SIZE = 64L * 1024 * 1024;

  @TempDir Path data;

  private record Figures(double[] provision, double[] again, double[] release) {}

  private Figures measure(String enforce, int rounds) {
    var storage =
        new LocalStorageProvider()
            .create(
                PluginConfig.of("enforce", enforce),
                new StorageContext(data.resolve(enforce), System.getLogger("bench")));
    var figures = new Figures(new double[rounds], new double[rounds], new double[rounds]);
    for (int i = 0; i < rounds; i++) {
      var request = new WorkspaceRequest("bench-" + i, SIZE, AccessMode.READ_WRITE_ONCE);
      long t0 = System.nanoTime();
      storage.provision(request);
      long t1 = System.nanoTime();
      storage.provision(request);
      long t2 = System.nanoTime();
      storage.release(request.name());
      long t3 = System.nanoTime();
      figures.provision()[i] = (t1 - t0) / 1e6;
      figures.again()[i] = (t2 - t1) / 1e6;
      figures.release()[i] = (t3 - t2) / 1e6;
    }
    assertThat(storage.list()).isEmpty();
    return figures;
  }

  private static double p(double[] values, double quantile) {
    var sorted = values.clone();
    Arrays.sort(sorted);
    return sorted[(int) Math.min(sorted.length - 1, Math.floor(quantile * sorted.length))];
  }

  @Test
  void printsTheCostOfAWorkspaceInEachMode() {
    var directory = measure("none", 200);
    boolean loop =
        Files.exists(Path.of("/dev/loop-control"))
            && "root".equals(System.getProperty("user.name"));
    var looped = loop ? measure("loop", 20) : null;
    System.out.printf("storage-local benchmark (64 MiB workspaces; p50 / p99 in ms)%n");
    print("enforce=none", directory);
    if (looped != null) {
      print("enforce=loop", looped);
      System.out.printf(
          "  ratio loop/none p50: provision %.0fx, provision again %.1fx, release %.0fx%n",
          p(looped.provision(), 0.5) / p(directory.provision(), 0.5),
          p(looped.again(), 0.5) / p(directory.again(), 0.5),
          p(looped.release(), 0.5) / p(directory.release(), 0.5));
    }
    assumeTrue(loop, "loop mode not measured: needs root and /dev/loop-control");
  }

  private static void print(String label, Figures figures) {
    System.out.printf(
        "  %-13s provision %7.2f / %7.2f   again %6.2f / %6.2f   release %7.2f / %7.2f%n",
        label,
        p(figures.provision(), 0.5),
        p(figures.provision(), 0.99),
        p(figures.again(), 0.5),
        p(figures.again(), 0.99),
        p(figures.release(), 0.5),
        p(figures.release(), 0.99));
  }
}
