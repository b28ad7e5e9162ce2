package dev.runkora.spi.runtime;

/** The network a sandbox gets. Names match the sandboxd API's {@code net} values. */
public enum NetworkMode {
  /**
   * No network: a private namespace with only {@code lo}. Needs {@link
   * RuntimeCapability#NETWORK_NONE}.
   */
  NONE,
  /** Outbound network access. Needs {@link RuntimeCapability#NETWORK_EGRESS}. */
  EGRESS;

  /** Returns the API name, {@code none} or {@code egress}. */
  public String apiName() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
