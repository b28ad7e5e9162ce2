package dev.runkora.plugin.registry.host;

import dev.runkora.spi.core.PluginConfig;
import dev.runkora.spi.registry.ImageRegistry;
import dev.runkora.spi.registry.RegistryCapability;
import dev.runkora.spi.registry.RegistryContext;
import dev.runkora.spi.registry.RegistryProvider;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Set;

/**
 * The {@code host} provider. Setting: {@code hostRoot} (default {@code /}), the directory whose
 * system folders are bound; only tests change it.
 */
public final class HostRegistryProvider implements RegistryProvider {

  /** Called by {@link java.util.ServiceLoader}. */
  public HostRegistryProvider() {}

  @Override
  public String name() {
    return "host";
  }

  @Override
  public Set<RegistryCapability> capabilities() {
    return EnumSet.noneOf(RegistryCapability.class);
  }

  @Override
  public String description() {
    return "The template 'host': this machine's /usr, /bin, /sbin, /lib* and /etc, read-only;"
        + " nothing to download.";
  }

  @Override
  public ImageRegistry create(PluginConfig config, RegistryContext context) {
    config.requireKnownKeys(name(), Set.of("hostRoot"));
    return new HostImageRegistry(
        config.path("hostRoot", Path.of("/")).toAbsolutePath(), context.cacheDirectory());
  }
}
