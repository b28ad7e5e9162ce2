package dev.runkora.spi.runtime;

import dev.runkora.spi.core.PluginConfig;
import dev.runkora.spi.core.PluginProvider;

/**
 * Discovered with {@link java.util.ServiceLoader}; creates the live runtime.
 *
 * <p>A module that provides a runtime declares {@code provides
 * dev.runkora.spi.runtime.RuntimeProvider with ...;}.
 */
public interface RuntimeProvider extends PluginProvider<RuntimeCapability> {

  /**
   * Creates the runtime. Called once by the host at start-up, on the start-up thread.
   *
   * <p>It checks what it needs on this machine (a binary, a writable cgroup hierarchy) and fails
   * rather than start half-working.
   *
   * @param config the plugin's settings
   * @param context what the host provides
   * @return the live runtime; the host closes it at shutdown
   * @throws dev.runkora.spi.core.KoraException {@code INVALID_ARGUMENT} for a bad setting, {@code
   *     UNAVAILABLE} when this machine lacks something the runtime needs
   */
  SandboxRuntime create(PluginConfig config, RuntimeContext context);
}
