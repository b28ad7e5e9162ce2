/**
 * The {@code oci-layout} image registry: images from a local OCI image layout directory, for
 * air-gapped nodes. References are {@code <name>:<tag>}, matched against the {@code
 * org.opencontainers.image.ref.name} annotations of the layout's {@code index.json}.
 *
 * <p>Blobs are checked and cached, and layers unpacked, by the very code of the {@code oci} plugin
 * ({@code dev.runkora.plugin.registry.oci.content}, exported to this module alone).
 */
module dev.runkora.plugin.registry.ocilayout {
  requires dev.runkora.spi.registry;
  requires dev.runkora.plugin.registry.oci;
  requires jakarta.json;

  provides dev.runkora.spi.registry.RegistryProvider with
      dev.runkora.plugin.registry.ocilayout.OciLayoutRegistryProvider;
}
