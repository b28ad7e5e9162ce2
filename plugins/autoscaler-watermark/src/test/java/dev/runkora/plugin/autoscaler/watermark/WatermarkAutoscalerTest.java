package dev.runkora.plugin.autoscaler.watermark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.runkora.conformance.autoscaler.ManualClock;
import dev.runkora.spi.autoscaler.Autoscaler;
import dev.runkora.spi.autoscaler.AutoscalerContext;
import dev.runkora.spi.autoscaler.AutoscalerProvider;
import dev.runkora.spi.autoscaler.ClusterDemand;
import dev.runkora.spi.autoscaler.PoolDemand;
import dev.runkora.spi.core.ErrorKind;
import dev.runkora.spi.core.KoraException;
import dev.runkora.spi.core.PluginConfig;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class WatermarkAutoscalerTest {

  private final ManualClock clock = new ManualClock();

  private Autoscaler create(String... settings) {
    return new WatermarkAutoscalerProvider()
        .create(PluginConfig.of(settings), new AutoscalerContext(clock, System.getLogger("test")));
  }

  private static PoolDemand demand(
      int floor, int ceiling, double arrivals, int pending, Duration lead) {
    return new PoolDemand("host|none|small", floor, ceiling, arrivals, 0, 0, pending, lead);
  }

  private static PoolDemand quiet(int floor, int ceiling) {
    return demand(floor, ceiling, 0, 0, Duration.ofSeconds(2));
  }

  @Test
  void theNeedIsArrivalsTimesLeadTimePlusPendingRoundedUpPlusHeadroom() {
    var autoscaler = create();

    // 5/s × 2.5 s + 3 pending = 15.5 → 16, plus 1 headroom.
    assertThat(autoscaler.warmTarget(demand(1, 100, 5.0, 3, Duration.ofMillis(2500))))
        .isEqualTo(17);
  }

  @Test
  void aTrickleOfClaimsStillRaisesAnEmptyPoolByTheRoundedNeedAndHeadroom() {
    var autoscaler = create();

    // 0.1/s × 2 s = 0.2 → 1, plus 1 headroom.
    assertThat(autoscaler.warmTarget(demand(0, 10, 0.1, 0, Duration.ofSeconds(2)))).isEqualTo(2);
  }

  @Test
  void noDemandMeansTheFloorEvenWithHeadroom() {
    var autoscaler = create("headroom", "3");

    assertThat(autoscaler.warmTarget(quiet(0, 10))).isZero();
    assertThat(autoscaler.warmTarget(quiet(2, 10))).isEqualTo(2);
  }

  @Test
  void theTargetIsCappedAtTheCeiling() {
    var autoscaler = create();

    assertThat(autoscaler.warmTarget(demand(1, 8, 1000.0, 0, Duration.ofSeconds(3)))).isEqualTo(8);
  }

  @Test
  void aRaisedTargetHoldsWhileDemandLastsAndDecaysLinearlyOverTheDecayPeriod() {
    var autoscaler = create("headroom", "0");
    // Peak: 10/s × 2 s = 20.
    assertThat(autoscaler.warmTarget(demand(0, 50, 10.0, 0, Duration.ofSeconds(2)))).isEqualTo(20);

    clock.advance(Duration.ofSeconds(15));
    assertThat(autoscaler.warmTarget(quiet(0, 50))).isEqualTo(15);
    clock.advance(Duration.ofSeconds(15));
    assertThat(autoscaler.warmTarget(quiet(0, 50))).isEqualTo(10);
    clock.advance(Duration.ofSeconds(29));
    assertThat(autoscaler.warmTarget(quiet(0, 50))).isEqualTo(1);
    clock.advance(Duration.ofSeconds(1));
    assertThat(autoscaler.warmTarget(quiet(0, 50))).isZero();
  }

  @Test
  void smallerDemandDuringTheDecayDoesNotCutTheTargetBelowTheDecayedPeak() {
    var autoscaler = create("headroom", "0");
    autoscaler.warmTarget(demand(0, 50, 10.0, 0, Duration.ofSeconds(2)));

    clock.advance(Duration.ofSeconds(30));
    // A need of 4 is below the decayed peak of 10: the target follows the decay, not the need.
    assertThat(autoscaler.warmTarget(demand(0, 50, 2.0, 0, Duration.ofSeconds(2)))).isEqualTo(10);
  }

  @Test
  void demandAtTheDecayedLevelSetsANewPeakThatHolds() {
    var autoscaler = create("headroom", "0");
    autoscaler.warmTarget(demand(0, 50, 10.0, 0, Duration.ofSeconds(2)));
    clock.advance(Duration.ofSeconds(30));
    // A need of 12 is above the decayed 10: it becomes the new peak, decaying from now.
    assertThat(autoscaler.warmTarget(demand(0, 50, 6.0, 0, Duration.ofSeconds(2)))).isEqualTo(12);

    clock.advance(Duration.ofSeconds(30));
    assertThat(autoscaler.warmTarget(quiet(0, 50))).isEqualTo(6);
  }

  @Test
  void theDecayPeriodIsConfigurable() {
    var autoscaler = create("decay", "10s");
    assertThat(autoscaler.warmTarget(demand(2, 50, 10.0, 0, Duration.ofSeconds(2))))
        .isGreaterThan(2);

    clock.advance(Duration.ofSeconds(10));

    assertThat(autoscaler.warmTarget(quiet(2, 50))).isEqualTo(2);
  }

  @Test
  void aClockThatStepsBackKeepsTheTargetAndFailsNothing() {
    var autoscaler = create("headroom", "0");
    autoscaler.warmTarget(demand(0, 50, 10.0, 0, Duration.ofSeconds(2)));

    clock.advance(Duration.ofSeconds(-30));

    assertThat(autoscaler.warmTarget(quiet(0, 50))).isEqualTo(20);
  }

  @Test
  void aStaticPoolIgnoresDemandAndKeepsNoHistory() {
    var autoscaler = create();

    assertThat(autoscaler.warmTarget(demand(3, 0, 100.0, 20, Duration.ofSeconds(5)))).isEqualTo(3);
    // Made adaptive later, the pool starts from its floor.
    assertThat(autoscaler.warmTarget(quiet(3, 10))).isEqualTo(3);
  }

  @Test
  void nonsenseInputsCannotPushTheTargetOutOfBounds() {
    var autoscaler = create();

    assertThat(autoscaler.warmTarget(demand(1, 5, Double.NaN, 0, Duration.ofSeconds(2))))
        .isEqualTo(1);
    assertThat(
            autoscaler.warmTarget(demand(1, 5, Double.POSITIVE_INFINITY, 0, Duration.ofSeconds(2))))
        .isEqualTo(1);
    assertThat(autoscaler.warmTarget(demand(1, 5, 1e300, 0, Duration.ofDays(3650)))).isEqualTo(5);
    assertThat(autoscaler.warmTarget(demand(1, 5, 10, 0, Duration.ofSeconds(-5)))).isEqualTo(5);
  }

  @Test
  void placeholdersAddOnePerPendingSandboxUpToTheConfiguredCountAgain() {
    var autoscaler = create();

    assertThat(autoscaler.placeholders(new ClusterDemand(3, 0, 10, -10)).replicas()).isEqualTo(3);
    assertThat(autoscaler.placeholders(new ClusterDemand(3, 2, 10, -10)).replicas()).isEqualTo(5);
    assertThat(autoscaler.placeholders(new ClusterDemand(3, 50, 10, -10)).replicas()).isEqualTo(6);
    assertThat(autoscaler.placeholders(new ClusterDemand(0, 50, 10, -10)).replicas()).isZero();
    assertThat(autoscaler.placeholders(new ClusterDemand(3, 50, 10, -7)).priority()).isEqualTo(-7);
  }

  @Test
  void thePlaceholderBurstIsConfigurable() {
    var autoscaler = create("placeholder-burst", "10");

    assertThat(autoscaler.placeholders(new ClusterDemand(2, 50, 0, -10)).replicas()).isEqualTo(12);
    assertThat(autoscaler.placeholders(new ClusterDemand(0, 4, 0, -10)).replicas()).isEqualTo(4);
  }

  @Test
  void badSettingsAreRejectedNamingTheSetting() {
    for (var settings :
        new String[][] {
          {"decay", "0s"},
          {"decay", "soon"},
          {"headroom", "-1"},
          {"placeholder-burst", "-5"},
          {"ceiling", "3"}
        }) {
      assertThatThrownBy(() -> create(settings))
          .as("%s=%s", settings[0], settings[1])
          .isInstanceOfSatisfying(
              KoraException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.INVALID_ARGUMENT))
          .hasMessageContaining(settings[0]);
    }
  }

  @Test
  void isProvidedUnderTheNameWatermark() {
    var descriptor = WatermarkAutoscalerProvider.class.getModule().getDescriptor();

    assertThat(new WatermarkAutoscalerProvider().name()).isEqualTo("watermark");
    assertThat(descriptor.provides())
        .anySatisfy(
            p -> {
              assertThat(p.service()).isEqualTo(AutoscalerProvider.class.getName());
              assertThat(p.providers())
                  .containsExactly(WatermarkAutoscalerProvider.class.getName());
            });
  }
}
