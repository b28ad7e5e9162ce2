package dev.runkora.plugin.registry.host;

import dev.runkora.conformance.registry.RegistryMaterializeSuite;
import dev.runkora.spi.registry.RegistryProvider;

/** The registry materialize suite against {@code host}. */
class HostMaterializeTest extends RegistryMaterializeSuite {

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
