package dev.runkora.pluginhost;

import java.util.Objects;
import java.util.Optional;

/**
 * Something in the boot layer or the plugin directory that could not be loaded as a plugin.
 *
 * @param extensionPoint the extension point it concerns, or empty when it concerns a whole jar
 *     (which then may have been any plugin)
 * @param location the jar or directory, or {@code boot layer} / {@code class path}
 * @param message what is wrong, for a person; names the module and the cause
 */
public record PluginProblem(Optional<String> extensionPoint, String location, String message) {

  /** Checks for nulls. */
  public PluginProblem {
    Objects.requireNonNull(extensionPoint, "extensionPoint");
    Objects.requireNonNull(location, "location");
    Objects.requireNonNull(message, "message");
  }

  boolean concerns(ExtensionPoint<?> point) {
    return extensionPoint.isEmpty() || extensionPoint.get().equals(point.label());
  }
}
