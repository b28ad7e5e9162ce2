package dev.runkora.plugin.registry.host;

import dev.runkora.conformance.registry.RegistryCacheSuite;
import dev.runkora.spi.registry.RegistryProvider;

/** The registry cache suite against {@code host}. */
class HostCacheTest extends RegistryCacheSuite {

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
