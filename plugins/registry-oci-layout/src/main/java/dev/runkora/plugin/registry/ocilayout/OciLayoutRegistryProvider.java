package dev.runkora.plugin.registry.ocilayout;

import dev.runkora.spi.core.KoraException;
import dev.runkora.spi.core.PluginConfig;
import dev.runkora.spi.registry.ImageRegistry;
import dev.runkora.spi.registry.RegistryCapability;
import dev.runkora.spi.registry.RegistryContext;
import dev.runkora.spi.registry.RegistryProvider;
import java.nio.file.Files;
import java.util.EnumSet;
import java.util.Set;

/**
 * The {@code oci-layout} provider. Settings: {@code path} (required), the layout directory; {@code
 * platform} ({@code os/architecture[/variant]}, this node's by default) picks the manifest of an
 * image index.
 */
public final class OciLayoutRegistryProvider implements RegistryProvider {

  /** Called by {@link java.util.ServiceLoader}. */
  public OciLayoutRegistryProvider() {}

  @Override
  public String name() {
    return "oci-layout";
  }

  @Override
  public Set<RegistryCapability> capabilities() {
    return EnumSet.of(
        RegistryCapability.PULL,
        RegistryCapability.IMAGE_INDEX,
        RegistryCapability.DIGEST_VERIFICATION,
        RegistryCapability.CACHE);
  }

  @Override
  public String description() {
    return "Images from a local OCI image layout directory, digest-checked and cached; for"
        + " air-gapped nodes.";
  }

  @Override
  public ImageRegistry create(PluginConfig config, RegistryContext context) {
    config.requireKnownKeys(name(), Set.of("path", "platform"));
    var path =
        config
            .string("path")
            .orElseThrow(
                () ->
                    KoraException.invalidArgument(
                        "plugin 'oci-layout' needs the setting 'path', the OCI layout directory"));
    var layout = java.nio.file.Path.of(path).toAbsolutePath();
    if (!Files.isRegularFile(layout.resolve("oci-layout"))
        || !Files.isRegularFile(layout.resolve("index.json"))) {
      throw KoraException.invalidArgument(
          "setting 'path' of plugin 'oci-layout' must be an OCI image layout (with oci-layout and"
              + " index.json); %s is not",
          layout);
    }
    var platform =
        config
            .string("platform")
            .map(
                text -> {
                  var parts = text.trim().split("/");
                  if (parts.length < 2 || parts.length > 3) {
                    throw KoraException.invalidArgument(
                        "setting 'platform' must be os/architecture[/variant], not '%s'", text);
                  }
                  return new dev.runkora.plugin.registry.oci.content.ManifestDocument.Platform(
                      parts[0], parts[1], parts.length == 3 ? parts[2] : "");
                })
            .orElse(dev.runkora.plugin.registry.oci.content.ManifestDocument.Platform.current());
    return new OciLayoutRegistry(
        layout,
        new dev.runkora.plugin.registry.oci.content.ImageCache(context.cacheDirectory()),
        platform);
  }
}
