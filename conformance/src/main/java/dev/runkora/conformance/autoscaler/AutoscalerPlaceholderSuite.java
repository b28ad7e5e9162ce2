package dev.runkora.conformance.autoscaler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.runkora.spi.autoscaler.AutoscalerCapability;
import dev.runkora.spi.autoscaler.ClusterDemand;
import dev.runkora.spi.core.ErrorKind;
import dev.runkora.spi.core.KoraException;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Conformance for {@link AutoscalerCapability#PLACEHOLDERS}: a plan keeps the configured priority,
 * holds the configured replicas when nothing is pending, and never holds fewer; an autoscaler
 * without the capability rejects the call.
 */
public abstract class AutoscalerPlaceholderSuite extends AutoscalerSuite {

  /** With nothing pending, the plan is the configured replicas at the configured priority. */
  @Test
  public void withNothingPendingThePlanIsTheConfiguredReplicas() {
    assumeTrue(declares(AutoscalerCapability.PLACEHOLDERS));
    var plan = autoscaler.placeholders(new ClusterDemand(3, 0, 7, -10));
    assertThat(plan.replicas()).isEqualTo(3);
    assertThat(plan.priority()).isEqualTo(-10);
  }

  /** Zero configured replicas means no placeholders when nothing is pending. */
  @Test
  public void zeroConfiguredReplicasMeansNoPlaceholders() {
    assumeTrue(declares(AutoscalerCapability.PLACEHOLDERS));
    assertThat(autoscaler.placeholders(new ClusterDemand(0, 0, 0, -10)).replicas()).isZero();
  }

  /** Over random demand the priority is kept and replicas never drop below the configured count. */
  @Test
  public void priorityIsKeptAndReplicasNeverFallBelowConfigured() {
    assumeTrue(declares(AutoscalerCapability.PLACEHOLDERS));
    var random = new Random(7);
    for (int i = 0; i < 500; i++) {
      var demand =
          new ClusterDemand(
              random.nextInt(10),
              random.nextInt(50),
              random.nextInt(200),
              -1 - random.nextInt(100));
      var plan = autoscaler.placeholders(demand);
      assertThat(plan.priority()).as("%s", demand).isEqualTo(demand.priority());
      assertThat(plan.replicas())
          .as("%s", demand)
          .isGreaterThanOrEqualTo(demand.configuredReplicas());
    }
  }

  /** An autoscaler without {@link AutoscalerCapability#PLACEHOLDERS} rejects the call. */
  @Test
  public void placeholdersWithoutTheCapabilityIsUnsupported() {
    assumeFalse(declares(AutoscalerCapability.PLACEHOLDERS));
    assertThatThrownBy(() -> autoscaler.placeholders(new ClusterDemand(1, 0, 0, -10)))
        .isInstanceOfSatisfying(
            KoraException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.UNSUPPORTED));
  }
}
