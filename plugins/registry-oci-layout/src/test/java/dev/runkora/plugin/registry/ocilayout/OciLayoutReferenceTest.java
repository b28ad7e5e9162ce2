package dev.runkora.plugin.registry.ocilayout;

import dev.runkora.conformance.registry.RegistryReferenceSuite;
import dev.runkora.spi.core.PluginConfig;
import dev.runkora.spi.registry.RegistryProvider;
import java.util.Optional;

/** The registry reference suite against {@code oci-layout}, reading a layout made by the test. */
class OciLayoutReferenceTest extends RegistryReferenceSuite {

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
