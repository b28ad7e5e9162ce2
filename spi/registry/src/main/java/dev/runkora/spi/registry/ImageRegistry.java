package dev.runkora.spi.registry;

import java.util.function.Consumer;

/**
 * A live registry plugin: resolves references, fetches manifests, keeps a local cache and turns
 * images into root filesystems.
 *
 * <p>Called by the node daemon (claim handlers, pool refill workers) and by the operator, from many
 * threads at once. Two concurrent pulls of the same image must not both download it, and must not
 * see each other's half-written files: content appears in the cache only once complete and
 * verified.
 */
public interface ImageRegistry extends AutoCloseable {

  /**
   * Returns whether this plugin serves a reference at all (the {@code host} plugin serves only
   * {@code host}; {@code oci} serves any registry reference). Cheap, no I/O, thread-safe.
   */
  boolean serves(String reference);

  /**
   * Parses a reference and applies this node's registry settings (registry ports; a mirror is
   * applied when content is read, so the reference keeps its own host). Cheap, no I/O.
   *
   * @throws dev.runkora.spi.core.KoraException {@code INVALID_ARGUMENT} for a malformed reference
   *     or a registry port not in {@link RegistrySettings#registryPorts()}
   */
  ImageReference resolve(String reference);

  /**
   * Fetches the platform manifest of an image, following an image index to this node's platform.
   * Idempotent. Needs {@link RegistryCapability#PULL} for remote sources.
   *
   * @throws dev.runkora.spi.core.KoraException {@code NOT_FOUND} for an unknown image or a platform
   *     the index lacks; {@code UNAVAILABLE} when the source cannot be reached; {@code
   *     INVALID_ARGUMENT} when the content is not a manifest or its digest does not match
   */
  ImageManifest manifest(ImageReference reference);

  /**
   * Makes the image's root filesystem available on this node, pulling and unpacking what the cache
   * lacks. Idempotent, and cheap once the image is warm. Concurrent calls for one image share the
   * work.
   *
   * @param reference the image
   * @param progress told of progress as it happens (bytes fetched, layers unpacked), on the calling
   *     thread; may ignore its argument
   * @throws dev.runkora.spi.core.KoraException as {@link #manifest}, and {@code INVALID_ARGUMENT}
   *     for a blob whose digest does not match or a layer that is not a safe tar (a path outside
   *     the root, a device node); nothing half-written stays in the cache
   */
  RootFilesystem materialize(ImageReference reference, Consumer<String> progress);

  /**
   * Returns whether {@link #materialize} would need no download or unpacking. Needs {@link
   * RegistryCapability#CACHE}; a plugin without a cache answers true when its content is always
   * local.
   */
  boolean isWarm(ImageReference reference);

  /**
   * Removes an image's unpacked root and the blobs no other cached image uses. Idempotent. Needs
   * {@link RegistryCapability#CACHE}.
   *
   * @throws dev.runkora.spi.core.KoraException {@code UNSUPPORTED} without the capability
   */
  void evict(ImageReference reference);

  /** Releases connections and threads. Idempotent; leaves the cache on disk. */
  @Override
  void close();
}
