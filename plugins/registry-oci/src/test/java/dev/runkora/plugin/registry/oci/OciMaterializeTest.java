package dev.runkora.plugin.registry.oci;

import dev.runkora.conformance.registry.RegistryMaterializeSuite;
import dev.runkora.spi.registry.RegistryProvider;
import java.util.Optional;

/** The registry materialize suite against {@code oci}, reading a stand-in registry on loopback. */
class OciMaterializeTest extends RegistryMaterializeSuite {

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
