package dev.runkora.plugin.registry.ocilayout;

import dev.runkora.conformance.registry.LocalTestRegistry;
import dev.runkora.conformance.registry.RegistryMaterializeSuite;
import dev.runkora.spi.core.PluginConfig;
import dev.runkora.spi.registry.RegistryProvider;

/** The registry materialize suite against {@code oci-layout} and the busybox layout umoci built. */
class OciLayoutMaterializeIT extends RegistryMaterializeSuite {

  @Override
  protected RegistryProvider provider() {
    return new OciLayoutRegistryProvider();
  }

  @Override
  protected PluginConfig config() {
    return PluginConfig.of("path", LocalTestRegistry.layout().toString());
  }

  @Override
  protected String image() {
    return "kora/busybox:latest";
  }

  @Override
  protected String executableInImage() {
    return "/bin/busybox";
  }
}
