package dev.runkora.spi.autoscaler;

import dev.runkora.spi.core.PluginConfig;
import dev.runkora.spi.core.PluginProvider;

/** Discovered with {@link java.util.ServiceLoader}; creates the live autoscaler. */
public interface AutoscalerProvider extends PluginProvider<AutoscalerCapability> {

  /**
   * Creates the autoscaler. Called once by the host at start-up, on the start-up thread.
   *
   * @throws dev.runkora.spi.core.KoraException {@code INVALID_ARGUMENT} for a bad setting
   */
  Autoscaler create(PluginConfig config, AutoscalerContext context);
}
