package dev.runkora.plugin.registry.ocilayout;

import dev.runkora.conformance.registry.RegistryCacheSuite;
import dev.runkora.spi.core.PluginConfig;
import dev.runkora.spi.registry.RegistryProvider;
import java.util.Optional;

/** The registry cache suite against {@code oci-layout}, reading a layout made by the test. */
class OciLayoutCacheTest extends RegistryCacheSuite {

  @Override
  protected RegistryProvider provider() {
    return new OciLayoutRegistryProvider();
  }

  @Override
  protected PluginConfig config() {
    return PluginConfig.of("path", TestImagesLayout.directory().toString());
  }

  @Override
  protected String image() {
    return "kora/test:good";
  }

  @Override
  protected String executableInImage() {
    return "/bin/hello";
  }

  @Override
  protected Optional<String> testImage(String tag) {
    return Optional.of("kora/test:" + tag);
  }
}
