package dev.runkora.spi.registry;

import dev.runkora.spi.core.PluginConfig;
import dev.runkora.spi.core.PluginProvider;

/** Discovered with {@link java.util.ServiceLoader}; creates the live registry plugin. */
public interface RegistryProvider extends PluginProvider<RegistryCapability> {

  /**
   * Creates the registry plugin. Called once by the host at start-up, on the start-up thread.
   *
   * @param config the plugin's settings
   * @param context what the host provides
   * @return the live plugin; the host closes it at shutdown
   * @throws dev.runkora.spi.core.KoraException {@code INVALID_ARGUMENT} for a bad setting, {@code
   *     UNAVAILABLE} when its cache directory cannot be used
   */
  ImageRegistry create(PluginConfig config, RegistryContext context);
}
