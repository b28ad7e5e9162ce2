package dev.runkora.spi.storage;

import dev.runkora.spi.core.PluginConfig;
import dev.runkora.spi.core.PluginProvider;

/** Discovered with {@link java.util.ServiceLoader}; creates the live storage class. */
public interface StorageProvider extends PluginProvider<StorageCapability> {

  /**
   * Creates the storage class. Called once by the host at start-up, on the start-up thread.
   *
   * @throws dev.runkora.spi.core.KoraException {@code INVALID_ARGUMENT} for a bad setting, {@code
   *     UNAVAILABLE} when its data directory cannot be used
   */
  StorageClass create(PluginConfig config, StorageContext context);
}
