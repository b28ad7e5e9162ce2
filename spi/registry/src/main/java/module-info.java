/**
 * The image-registry extension point: how a template or image reference is resolved to content on
 * this node (mirrors, registry ports, auth, digests, a cache, warming) and materialised as a root
 * filesystem.
 *
 * <p>The node daemon and the operator {@code use} {@link
 * dev.runkora.spi.registry.RegistryProvider}; plugins such as {@code oci}, {@code host} and {@code
 * oci-layout} provide it.
 */
module dev.runkora.spi.registry {
  requires transitive dev.runkora.spi.core;

  exports dev.runkora.spi.registry;
}
