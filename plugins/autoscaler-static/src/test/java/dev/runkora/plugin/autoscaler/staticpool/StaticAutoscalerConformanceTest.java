package dev.runkora.plugin.autoscaler.staticpool;

import dev.runkora.conformance.autoscaler.AutoscalerWarmPoolSuite;
import dev.runkora.spi.autoscaler.AutoscalerProvider;

class StaticAutoscalerConformanceTest {

  static final AutoscalerProvider PROVIDER = new StaticAutoscalerProvider();

  @org.junit.jupiter.api.Nested
  class WarmPool extends AutoscalerWarmPoolSuite {
    @Override
    protected AutoscalerProvider provider() {
      return PROVIDER;
    }
  }

  @org.junit.jupiter.api.Nested
  class Adaptive extends dev.runkora.conformance.autoscaler.AutoscalerAdaptiveSuite {
    @Override
    protected AutoscalerProvider provider() {
      return PROVIDER;
    }
  }

  @org.junit.jupiter.api.Nested
  class Placeholders extends dev.runkora.conformance.autoscaler.AutoscalerPlaceholderSuite {
    @Override
    protected AutoscalerProvider provider() {
      return PROVIDER;
    }
  }
}
