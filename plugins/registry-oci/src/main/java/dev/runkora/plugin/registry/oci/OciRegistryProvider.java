package dev.runkora.plugin.registry.oci;

import dev.runkora.plugin.registry.oci.content.ImageCache;
import dev.runkora.plugin.registry.oci.content.ManifestDocument;
import dev.runkora.spi.core.KoraException;
import dev.runkora.spi.core.PluginConfig;
import dev.runkora.spi.registry.ImageRegistry;
import dev.runkora.spi.registry.RegistryCapability;
import dev.runkora.spi.registry.RegistryContext;
import dev.runkora.spi.registry.RegistryProvider;
import java.util.EnumSet;
import java.util.Set;

/**
 * The {@code oci} provider. Settings: {@code platform} ({@code os/architecture[/variant]}, this
 * node's by default) picks the manifest of an image index.
 */
public final class OciRegistryProvider implements RegistryProvider {

  /** Called by {@link java.util.ServiceLoader}. */
  public OciRegistryProvider() {}

  @Override
  public String name() {
    return "oci";
  }

  @Override
  public Set<RegistryCapability> capabilities() {
    return EnumSet.allOf(RegistryCapability.class);
  }

  @Override
  public String description() {
    return "Images from OCI distribution registries: bearer auth, mirrors, digest-checked blob"
        + " cache, layers unpacked with whiteouts.";
  }

  @Override
  public ImageRegistry create(PluginConfig config, RegistryContext context) {
    config.requireKnownKeys(name(), Set.of("platform"));
    var platform =
        config
            .string("platform")
            .map(OciRegistryProvider::platform)
            .orElse(ManifestDocument.Platform.current());
    return new OciImageRegistry(
        context.settings(), new ImageCache(context.cacheDirectory()), platform, context.logger());
  }

  private static ManifestDocument.Platform platform(String text) {
    var parts = text.trim().split("/");
    if (parts.length < 2 || parts.length > 3 || parts[0].isBlank() || parts[1].isBlank()) {
      throw KoraException.invalidArgument(
          "setting 'platform' must be os/architecture[/variant], such as linux/amd64, not '%s'",
          text);
    }
    return new ManifestDocument.Platform(parts[0], parts[1], parts.length == 3 ? parts[2] : "");
  }
}
