package dev.runkora.conformance.autoscaler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.runkora.spi.autoscaler.AutoscalerCapability;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Conformance for {@link AutoscalerCapability#ADAPTIVE}: the target rises above the floor while
 * claims arrive, never passes the ceiling, falls back to the floor after a quiet period (measured
 * on the context's clock, never the system clock), and pools do not share history.
 */
public abstract class AutoscalerAdaptiveSuite extends AutoscalerSuite {

  /** The longest quiet period after which every adaptive autoscaler is back at its floor. */
  protected Duration maximumDecay() {
    return Duration.ofMinutes(10);
  }

  /** Skips the suite for autoscalers that do not adapt. */
  @BeforeEach
  public void requireAdaptive() {
    assumeTrue(declares(AutoscalerCapability.WARM_POOL) && declares(AutoscalerCapability.ADAPTIVE));
  }

  private int underLoad(String pool, int floor, int ceiling, int seconds) {
    int target = floor;
    for (int i = 0; i < seconds; i++) {
      target = autoscaler.warmTarget(busy(pool, floor, ceiling, 20.0, 5));
      clock.advance(Duration.ofSeconds(1));
    }
    return target;
  }

  /** Sustained claims that outpace the lead time raise the target above the floor. */
  @Test
  public void sustainedDemandRaisesTheTargetAboveTheFloor() {
    assertThat(underLoad("pool", 1, 30, 10)).isGreaterThan(1).isLessThanOrEqualTo(30);
  }

  /** However large the demand, the target never passes the ceiling. */
  @Test
  public void extremeDemandIsCappedAtTheCeiling() {
    for (int i = 0; i < 30; i++) {
      assertThat(autoscaler.warmTarget(busy("pool", 2, 8, 10_000.0, 1_000))).isBetween(2, 8);
      clock.advance(Duration.ofSeconds(1));
    }
    assertThat(autoscaler.warmTarget(busy("pool", 2, 8, 10_000.0, 1_000))).isEqualTo(8);
  }

  /** After demand stops, the target returns to the floor once enough quiet time has passed. */
  @Test
  public void theTargetDecaysToTheFloorAfterAQuietPeriod() {
    assertThat(underLoad("pool", 2, 30, 10)).isGreaterThan(2);
    var quietFor = Duration.ZERO;
    int target = Integer.MAX_VALUE;
    while (quietFor.compareTo(maximumDecay()) <= 0 && target != 2) {
      target = autoscaler.warmTarget(quiet("pool", 2, 30));
      clock.advance(Duration.ofSeconds(1));
      quietFor = quietFor.plusSeconds(1);
    }
    assertThat(target).as("target after %s of quiet", quietFor).isEqualTo(2);
  }

  /** The decay follows the context's clock: with the clock stopped, a raised target stays up. */
  @Test
  public void decayFollowsTheContextClockNotTheSystemClock() throws InterruptedException {
    underLoad("pool", 1, 30, 10);
    int raised = autoscaler.warmTarget(quiet("pool", 1, 30));
    assertThat(raised).isGreaterThan(1);
    Thread.sleep(50);
    for (int i = 0; i < 20; i++) {
      assertThat(autoscaler.warmTarget(quiet("pool", 1, 30))).isEqualTo(raised);
    }
  }

  /** Load on one pool does not raise another pool's target. */
  @Test
  public void poolsDoNotShareHistory() {
    assertThat(underLoad("busy", 1, 30, 10)).isGreaterThan(1);
    assertThat(autoscaler.warmTarget(quiet("idle", 1, 30))).isEqualTo(1);
  }

  /** Forgetting a pool drops its history: the next quiet call is back at the floor. */
  @Test
  public void forgetDropsAPoolsHistory() {
    assertThat(underLoad("pool", 1, 30, 10)).isGreaterThan(1);
    autoscaler.forget("pool");
    assertThat(autoscaler.warmTarget(quiet("pool", 1, 30))).isEqualTo(1);
  }

  /** Lowering a pool's ceiling applies at once, even to a target raised before. */
  @Test
  public void aLoweredCeilingAppliesAtOnce() {
    assertThat(underLoad("pool", 1, 30, 10)).isGreaterThan(3);
    assertThat(autoscaler.warmTarget(quiet("pool", 1, 3))).isBetween(1, 3);
  }
}
