package dev.runkora.plugin.registry.oci.content;

import dev.runkora.spi.registry.Descriptor;
import java.io.IOException;
import java.io.InputStream;

/**
 * Where the cache reads a blob it lacks from: a registry, an OCI layout. The cache checks size and
 * digest of what it reads, so a source need not.
 */
@FunctionalInterface
public interface BlobSource {

  /**
   * Opens a blob's content.
   *
   * @throws dev.runkora.spi.core.KoraException {@code NOT_FOUND} when the source lacks it, {@code
   *     UNAVAILABLE} when the source cannot be reached
   */
  InputStream open(Descriptor descriptor) throws IOException;
}
