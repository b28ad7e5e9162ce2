package dev.runkora.plugin.autoscaler.watermark;

import dev.runkora.conformance.autoscaler.AdaptiveConformance;
import dev.runkora.conformance.autoscaler.PlaceholderConformance;
import dev.runkora.conformance.autoscaler.WarmPoolConformance;
import dev.runkora.spi.autoscaler.AutoscalerProvider;
import org.junit.jupiter.api.Nested;

class WatermarkAutoscalerConformanceTest {

  static final AutoscalerProvider PROVIDER = new WatermarkAutoscalerProvider();

  @Nested
  class WarmPool extends WarmPoolConformance {
    @Override
    protected AutoscalerProvider provider() {
      return PROVIDER;
    }
  }

  @Nested
  class Adaptive extends AdaptiveConformance {
    @Override
    protected AutoscalerProvider provider() {
      return PROVIDER;
    }
  }

  @Nested
  class Placeholders extends PlaceholderConformance {
    @Override
    protected AutoscalerProvider provider() {
      return PROVIDER;
    }
  }
}
