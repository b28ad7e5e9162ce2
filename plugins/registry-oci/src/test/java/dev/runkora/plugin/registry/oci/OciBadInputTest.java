package dev.runkora.plugin.registry.oci;

import dev.runkora.conformance.registry.RegistryBadInputSuite;
import dev.runkora.spi.registry.RegistryProvider;
import java.util.Optional;

/** The registry bad-input suite against {@code oci}, reading a stand-in registry on loopback. */
class OciBadInputTest extends RegistryBadInputSuite {

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
