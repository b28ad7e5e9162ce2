package dev.runkora.spi.registry;

import java.util.Objects;

/**
 * A piece of content named by its digest, as in an OCI manifest. Built by plugins through {@link
 * #of}.
 *
 * @param mediaType the content's media type
 * @param digest {@code sha256:<hex>}
 * @param size its length in bytes
 */
public record Descriptor(String mediaType, String digest, long size) {

  /** Checks for nulls. */
  public Descriptor {
    Objects.requireNonNull(mediaType, "mediaType");
    Objects.requireNonNull(digest, "digest");
  }

  /** Returns a descriptor. */
  public static Descriptor of(String mediaType, String digest, long size) {
    return new Descriptor(mediaType, digest, size);
  }
}
