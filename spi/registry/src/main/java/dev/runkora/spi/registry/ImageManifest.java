package dev.runkora.spi.registry;

import java.util.List;
import java.util.Objects;

/**
 * The platform manifest of an image: its config and its layers, bottom first. Built by plugins
 * through {@link #of}.
 *
 * @param reference the reference it was resolved from
 * @param digest the digest of the manifest itself (not of an index that led to it)
 * @param config the image configuration blob
 * @param layers the layer blobs, bottom first
 */
public record ImageManifest(
    ImageReference reference, String digest, Descriptor config, List<Descriptor> layers) {

  /** Checks for nulls and copies the layers. */
  public ImageManifest {
    Objects.requireNonNull(reference, "reference");
    Objects.requireNonNull(digest, "digest");
    Objects.requireNonNull(config, "config");
    layers = List.copyOf(layers);
  }

  /** Returns a manifest. */
  public static ImageManifest of(
      ImageReference reference, String digest, Descriptor config, List<Descriptor> layers) {
    return new ImageManifest(reference, digest, config, layers);
  }
}
