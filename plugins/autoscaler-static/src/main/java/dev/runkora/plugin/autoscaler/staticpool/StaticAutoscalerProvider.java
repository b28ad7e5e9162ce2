package dev.runkora.plugin.autoscaler.staticpool;

import dev.runkora.spi.autoscaler.Autoscaler;
import dev.runkora.spi.autoscaler.AutoscalerCapability;
import dev.runkora.spi.autoscaler.AutoscalerContext;
import dev.runkora.spi.autoscaler.AutoscalerProvider;
import dev.runkora.spi.autoscaler.ClusterDemand;
import dev.runkora.spi.autoscaler.PlaceholderPlan;
import dev.runkora.spi.autoscaler.PoolDemand;
import dev.runkora.spi.core.PluginConfig;
import java.util.EnumSet;
import java.util.Set;

/** Provides the {@code static} autoscaler. It reads no settings. */
public final class StaticAutoscalerProvider implements AutoscalerProvider {

  /** Creates the provider; ServiceLoader calls this. */
  public StaticAutoscalerProvider() {}

  @Override
  public String name() {
    return "static";
  }

  @Override
  public Set<AutoscalerCapability> capabilities() {
    return EnumSet.of(AutoscalerCapability.WARM_POOL, AutoscalerCapability.PLACEHOLDERS);
  }

  @Override
  public String description() {
    return "Holds each warm pool at its configured floor and the configured placeholder replicas.";
  }

  @Override
  public Autoscaler create(PluginConfig config, AutoscalerContext context) {
    config.requireKnownKeys(name(), Set.of());
    return new StaticAutoscaler();
  }

  private static final class StaticAutoscaler implements Autoscaler {
    @Override
    public int warmTarget(PoolDemand demand) {
      return demand.floor();
    }

    @Override
    public void forget(String pool) {
      // No history is kept.
    }

    @Override
    public PlaceholderPlan placeholders(ClusterDemand demand) {
      return PlaceholderPlan.of(demand.configuredReplicas(), demand.priority());
    }
  }
}
