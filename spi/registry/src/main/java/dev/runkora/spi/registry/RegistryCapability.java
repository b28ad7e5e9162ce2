package dev.runkora.spi.registry;

/** What an {@link ImageRegistry} can do. */
public enum RegistryCapability {
  /**
   * {@link ImageRegistry#manifest} and {@link ImageRegistry#materialize} fetch content from a
   * source.
   */
  PULL,
  /** Multi-platform image indexes are followed down to this node's platform manifest. */
  IMAGE_INDEX,
  /** A registry host can be read through a mirror ({@link RegistrySettings#mirrors()}). */
  MIRRORS,
  /** Registries that ask for a bearer token (a WWW-Authenticate challenge) are answered. */
  BEARER_AUTH,
  /** Every blob's digest is checked against its content before it is used. */
  DIGEST_VERIFICATION,
  /** {@link ImageRegistry#isWarm} and {@link ImageRegistry#evict} manage a local cache. */
  CACHE
}
