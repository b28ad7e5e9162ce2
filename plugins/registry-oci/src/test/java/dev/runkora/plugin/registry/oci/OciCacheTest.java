package dev.runkora.plugin.registry.oci;

import dev.runkora.conformance.registry.RegistryCacheSuite;
import dev.runkora.spi.registry.RegistryProvider;
import java.util.Optional;

/** The registry cache suite against {@code oci}, reading a stand-in registry on loopback. */
class OciCacheTest extends RegistryCacheSuite {

  @Override
  protected RegistryProvider provider() {
    return new OciRegistryProvider();
  }

  @Override
  protected String image() {
    return StandInRegistry.image("good").orElseThrow();
  }

  @Override
  protected String executableInImage() {
    return "/bin/hello";
  }

  @Override
  protected Optional<String> testImage(String tag) {
    return StandInRegistry.image(tag);
  }
}
