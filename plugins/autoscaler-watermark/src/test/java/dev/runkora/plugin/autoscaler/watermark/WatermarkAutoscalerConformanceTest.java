package dev.runkora.plugin.autoscaler.watermark;

import dev.runkora.conformance.autoscaler.AutoscalerAdaptiveSuite;
import dev.runkora.conformance.autoscaler.AutoscalerPlaceholderSuite;
import dev.runkora.conformance.autoscaler.AutoscalerWarmPoolSuite;
import dev.runkora.spi.autoscaler.AutoscalerProvider;
import org.junit.jupiter.api.Nested;

class WatermarkAutoscalerConformanceTest {

  static final AutoscalerProvider PROVIDER = new WatermarkAutoscalerProvider();

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
