package dev.runkora.sandboxd.plugins;

import dev.runkora.spi.autoscaler.Autoscaler;
import dev.runkora.spi.registry.ImageRegistry;
import dev.runkora.spi.runtime.SandboxRuntime;
import dev.runkora.spi.storage.StorageClass;
import java.util.List;
import java.util.Optional;

/**
 * The live plugins the daemon runs on.
 *
 * @param runtime the sandbox runtime
 * @param registries the registry plugins, in the order templates are offered to them
 * @param autoscaler the warm-target autoscaler
 * @param storage the storage class for workspace mounts, if any
 */
public record PluginSet(
    SandboxRuntime runtime,
    List<ImageRegistry> registries,
    Autoscaler autoscaler,
    Optional<StorageClass> storage)
    implements AutoCloseable {

  /** Copies the list. */
  public PluginSet {
    registries = List.copyOf(registries);
  }

  /** Closes every plugin; sandboxes stay running. */
  @Override
  public void close() {
    quietly(runtime);
    registries.forEach(PluginSet::quietly);
    quietly(autoscaler);
    storage.ifPresent(PluginSet::quietly);
  }

  private static void quietly(AutoCloseable closeable) {
    try {
      closeable.close();
    } catch (Exception e) {
      System.getLogger(PluginSet.class.getName())
          .log(System.Logger.Level.WARNING, "closing a plugin failed", e);
    }
  }
}
