package dev.runkora.pluginhost;

import java.util.Objects;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * One provider the plugin host found, for {@code kora info} and start-up messages.
 *
 * @param extensionPoint the extension point's label, such as {@code runtime}
 * @param name the provider's configured name, such as {@code bwrap}
 * @param description the provider's one-sentence description
 * @param capabilities the names of its declared capabilities, sorted
 * @param module the name of the module that holds it ({@code unnamed module} on the class path)
 * @param location where it was loaded from: {@code boot layer}, {@code class path}, or the path of
 *     its jar or plugin directory
 */
public record PluginInfo(
    String extensionPoint,
    String name,
    String description,
    SortedSet<String> capabilities,
    String module,
    String location) {

  /** Checks for nulls and copies the capabilities. */
  public PluginInfo {
    Objects.requireNonNull(extensionPoint, "extensionPoint");
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(description, "description");
    capabilities = java.util.Collections.unmodifiableSortedSet(new TreeSet<>(capabilities));
    Objects.requireNonNull(module, "module");
    Objects.requireNonNull(location, "location");
  }

  /** Returns {@code name (module M, LOCATION)}, the form used in selection messages. */
  public String where() {
    return "%s (module %s, %s)".formatted(name, module, location);
  }
}
