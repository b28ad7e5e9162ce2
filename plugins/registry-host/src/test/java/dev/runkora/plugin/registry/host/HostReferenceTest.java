package dev.runkora.plugin.registry.host;

import dev.runkora.conformance.registry.RegistryReferenceSuite;
import dev.runkora.spi.registry.RegistryProvider;

/** The registry reference suite against {@code host}. */
class HostReferenceTest extends RegistryReferenceSuite {

  @Override
  protected RegistryProvider provider() {
    return new HostRegistryProvider();
  }

  @Override
  protected String image() {
    return "host";
  }

  @Override
  protected String executableInImage() {
    return "/usr/bin/env";
  }
}
