package dev.runkora.conformance.autoscaler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.runkora.spi.autoscaler.AutoscalerCapability;
import dev.runkora.spi.autoscaler.PoolDemand;
import dev.runkora.spi.core.ErrorKind;
import dev.runkora.spi.core.KoraException;
import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Conformance for {@link AutoscalerCapability#WARM_POOL}: warm-pool targets stay within their
 * bounds, a static pool holds its floor, and an autoscaler without the capability rejects the call.
 */
public abstract class AutoscalerWarmPoolSuite extends AutoscalerSuite {

  /** The target is within [floor, max(floor, ceiling)] over random demand, time and bounds. */
  @Test
  public void targetStaysWithinFloorAndCeilingOverRandomDemand() {
    assumeTrue(declares(AutoscalerCapability.WARM_POOL));
    for (long seed = 1; seed <= 20; seed++) {
      var random = new Random(seed);
      int floor = random.nextInt(6);
      int ceiling = random.nextBoolean() ? 0 : floor + random.nextInt(30);
      for (int step = 0; step < 400; step++) {
        if (random.nextInt(50) == 0) {
          // The pool is reconfigured: new bounds apply at once, whatever the history.
          floor = random.nextInt(6);
          ceiling = random.nextBoolean() ? 0 : floor + random.nextInt(30);
        }
        var demand =
            new PoolDemand(
                "pool-" + seed,
                floor,
                ceiling,
                random.nextInt(4) == 0 ? 0.0 : random.nextDouble() * 80,
                random.nextInt(10),
                random.nextInt(5),
                random.nextInt(4) == 0 ? random.nextInt(40) : 0,
                Duration.ofMillis(random.nextInt(30_000)));
        int target = autoscaler.warmTarget(demand);
        assertThat(target)
            .as("seed %d step %d: %s", seed, step, demand)
            .isBetween(floor, Math.max(floor, ceiling));
        clock.advance(Duration.ofMillis(random.nextInt(5_000)));
      }
    }
  }

  /** Pools called from several threads at once (one thread per pool) each stay in bounds. */
  @Test
  public void poolsOnSeveralThreadsEachStayInBounds() throws Exception {
    assumeTrue(declares(AutoscalerCapability.WARM_POOL));
    try (var executor = java.util.concurrent.Executors.newFixedThreadPool(4)) {
      var futures = new java.util.ArrayList<java.util.concurrent.Future<?>>();
      for (int thread = 0; thread < 4; thread++) {
        int seed = thread;
        futures.add(
            executor.submit(
                () -> {
                  var random = new Random(seed);
                  for (int step = 0; step < 2_000; step++) {
                    var demand =
                        new PoolDemand(
                            "thread-" + seed,
                            2,
                            12,
                            random.nextDouble() * 20,
                            0,
                            0,
                            random.nextInt(5),
                            Duration.ofMillis(random.nextInt(5_000)));
                    assertThat(autoscaler.warmTarget(demand)).isBetween(2, 12);
                    if (step % 100 == 0) {
                      clock.advance(Duration.ofSeconds(1));
                    }
                  }
                }));
      }
      for (var future : futures) {
        future.get();
      }
    }
  }

  /** A pool whose ceiling is 0 is static: its target is its floor, whatever the demand. */
  @Test
  public void aStaticPoolHoldsItsFloorUnderAnyDemand() {
    assumeTrue(declares(AutoscalerCapability.WARM_POOL));
    for (int i = 0; i < 50; i++) {
      assertThat(autoscaler.warmTarget(busy("static", 3, 0, 100.0, 50))).isEqualTo(3);
      clock.advance(Duration.ofSeconds(1));
    }
    assertThat(autoscaler.warmTarget(quiet("static", 3, 0))).isEqualTo(3);
    assertThat(autoscaler.warmTarget(quiet("empty", 0, 0))).isZero();
  }

  /** A pool whose ceiling equals its floor has nowhere to move: its target is its floor. */
  @Test
  public void aPoolWithCeilingEqualToFloorHoldsItsFloor() {
    assumeTrue(declares(AutoscalerCapability.WARM_POOL));
    assertThat(autoscaler.warmTarget(busy("fixed", 4, 4, 100.0, 50))).isEqualTo(4);
  }

  /** Without {@link AutoscalerCapability#ADAPTIVE} the target is the floor under any demand. */
  @Test
  public void aNonAdaptiveAutoscalerTargetsTheFloor() {
    assumeTrue(declares(AutoscalerCapability.WARM_POOL));
    assumeFalse(declares(AutoscalerCapability.ADAPTIVE));
    for (int i = 0; i < 20; i++) {
      assertThat(autoscaler.warmTarget(busy("pool", 2, 20, 50.0, 10))).isEqualTo(2);
      clock.advance(Duration.ofSeconds(1));
    }
  }

  /** Forgetting a pool is idempotent and forgetting an unknown pool succeeds. */
  @Test
  public void forgetIsIdempotent() {
    assumeTrue(declares(AutoscalerCapability.WARM_POOL));
    autoscaler.warmTarget(busy("pool", 1, 10, 10.0, 3));
    autoscaler.forget("pool");
    autoscaler.forget("pool");
    autoscaler.forget("never-seen");
    assertThat(autoscaler.warmTarget(quiet("pool", 1, 10))).isBetween(1, 10);
  }

  /** An autoscaler without {@link AutoscalerCapability#WARM_POOL} rejects warmTarget. */
  @Test
  public void warmTargetWithoutTheCapabilityIsUnsupported() {
    assumeFalse(declares(AutoscalerCapability.WARM_POOL));
    assertThatThrownBy(() -> autoscaler.warmTarget(quiet("pool", 1, 0)))
        .isInstanceOfSatisfying(
            KoraException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.UNSUPPORTED));
  }
}
