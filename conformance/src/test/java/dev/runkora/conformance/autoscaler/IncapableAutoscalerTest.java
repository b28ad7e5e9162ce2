package dev.runkora.conformance.autoscaler;

import dev.runkora.spi.autoscaler.Autoscaler;
import dev.runkora.spi.autoscaler.AutoscalerCapability;
import dev.runkora.spi.autoscaler.AutoscalerContext;
import dev.runkora.spi.autoscaler.AutoscalerProvider;
import dev.runkora.spi.autoscaler.ClusterDemand;
import dev.runkora.spi.autoscaler.PlaceholderPlan;
import dev.runkora.spi.autoscaler.PoolDemand;
import dev.runkora.spi.core.KoraException;
import dev.runkora.spi.core.PluginConfig;
import java.util.Set;
import org.junit.jupiter.api.Nested;

/**
 * Runs the autoscaler suites against a provider that declares nothing, so the suites' UNSUPPORTED
 * checks run (the real plugins declare every capability and skip them).
 */
class IncapableAutoscalerTest {

  static final AutoscalerProvider PROVIDER =
      new AutoscalerProvider() {
        @Override
        public String name() {
          return "incapable";
        }

        @Override
        public Set<AutoscalerCapability> capabilities() {
          return Set.of();
        }

        @Override
        public String description() {
          return "Declares no capability.";
        }

        @Override
        public Autoscaler create(PluginConfig config, AutoscalerContext context) {
          return new Autoscaler() {
            @Override
            public int warmTarget(PoolDemand demand) {
              throw KoraException.unsupported(name(), AutoscalerCapability.WARM_POOL);
            }

            @Override
            public void forget(String pool) {}

            @Override
            public PlaceholderPlan placeholders(ClusterDemand demand) {
              throw KoraException.unsupported(name(), AutoscalerCapability.PLACEHOLDERS);
            }
          };
        }
      };

  @Nested
  class WarmPool extends AutoscalerWarmPoolSuite {
    @Override
    protected AutoscalerProvider provider() {
      return PROVIDER;
    }
  }

  @Nested
  class Adaptive extends AutoscalerAdaptiveSuite {
    @Override
    protected AutoscalerProvider provider() {
      return PROVIDER;
    }
  }

  @Nested
  class Placeholders extends AutoscalerPlaceholderSuite {
    @Override
    protected AutoscalerProvider provider() {
      return PROVIDER;
    }
  }
}
