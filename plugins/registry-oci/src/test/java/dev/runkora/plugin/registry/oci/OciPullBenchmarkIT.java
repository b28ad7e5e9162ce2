package dev.runkora.plugin.registry.oci;

import dev.runkora.conformance.registry.LocalTestRegistry;
import dev.runkora.spi.core.PluginConfig;
import dev.runkora.spi.registry.RegistryContext;
import dev.runkora.spi.registry.RegistrySettings;
import java.nio.file.Files;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * Figures, not assertions: pull+unpack of the busybox test image from the real registry on a cold
 * cache, against materialising the same image from a warm cache, measured in one run. The ratio is
 * printed on standard output.
 */
class OciPullBenchmarkIT {
  private static final int ROUNDS = 5;

  @Test
  public void printsColdPullAgainstCachedMaterialize() throws Exception {
    var reference = LocalTestRegistry.busybox("latest");
    long[] cold = new long[ROUNDS];
    long[] cached = new long[ROUNDS];
    for (int round = -1; round < ROUNDS; round++) { // round -1 warms up the JVM
      var cache = Files.createTempDirectory("kora-oci-bench-");
      try (var registry =
          new OciRegistryProvider()
              .create(
                  PluginConfig.empty(),
                  new RegistryContext(
                      cache, RegistrySettings.defaults(), System.getLogger("bench")))) {
        var image = registry.resolve(reference);
        long start = System.nanoTime();
        registry.materialize(image, m -> {});
        long afterCold = System.nanoTime();
        registry.materialize(image, m -> {});
        long afterCached = System.nanoTime();
        if (round >= 0) {
          cold[round] = afterCold - start;
          cached[round] = afterCached - afterCold;
        }
        registry.evict(image);
      } finally {
        try (var walk = Files.walk(cache)) {
          walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
      }
    }
    double coldMs = median(cold) / 1e6;
    double cachedMs = median(cached) / 1e6;
    System.out.printf(
        "registry-oci bench: %s pull+unpack cold %.1f ms, cached %.3f ms (median of %d); cold/cached = %.0fx%n",
        reference, coldMs, cachedMs, ROUNDS, coldMs / cachedMs);
  }

  private static double median(long[] values) {
    var sorted = values.clone();
    Arrays.sort(sorted);
    return sorted[sorted.length / 2];
  }
}
