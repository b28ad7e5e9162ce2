package dev.runkora.plugin.registry.oci;

import dev.runkora.conformance.registry.LocalTestRegistry;
import dev.runkora.conformance.registry.RegistryCacheSuite;
import dev.runkora.spi.registry.RegistryProvider;

/**
 * The registry cache suite against {@code oci} and a real registry: Debian's docker-registry on
 * loopback serving the busybox image built by umoci and pushed with skopeo.
 */
class OciCacheIT extends RegistryCacheSuite {

  @Override
  protected RegistryProvider provider() {
    return new OciRegistryProvider();
  }

  @Override
  protected String image() {
    return LocalTestRegistry.busybox("latest");
  }

  @Override
  protected String executableInImage() {
    return "/bin/busybox";
  }
}
