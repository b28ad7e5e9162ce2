/**
 * The {@code oci} image registry: an OCI distribution v2 client on {@code java.net.http} (anonymous
 * and bearer-token access, Docker schema 2 and OCI media types, image indexes, mirrors and registry
 * ports), a content-addressed blob cache that checks every digest, and a layer unpacker (gzip,
 * whiteouts, opaque directories, refusing unsafe tar entries).
 *
 * <p>The cache and the unpacker live in {@code dev.runkora.plugin.registry.oci.content}, exported
 * only to the {@code oci-layout} plugin, which reads the same image format from a local directory.
 */
module dev.runkora.plugin.registry.oci {
  requires dev.runkora.spi.registry;
  requires java.net.http;
  requires jakarta.json;
  requires org.eclipse.parsson;

  exports dev.runkora.plugin.registry.oci.content to
      dev.runkora.plugin.registry.ocilayout;

  provides dev.runkora.spi.registry.RegistryProvider with
      dev.runkora.plugin.registry.oci.OciRegistryProvider;
}
