package dev.runkora.spi.storage;

import java.util.Set;

/**
 * What a storage class offers, for placement decisions and for the chart's checks. Built by plugins
 * through {@link #of}.
 *
 * @param accessModes the access modes its workspaces support
 * @param nodeLocal whether workspaces live on one node's disk
 * @param expandable whether workspaces can grow in place
 */
public record StorageDescription(
    Set<AccessMode> accessModes, boolean nodeLocal, boolean expandable) {

  /** Copies the access modes. */
  public StorageDescription {
    accessModes = Set.copyOf(accessModes);
  }

  /** Returns a description. */
  public static StorageDescription of(
      Set<AccessMode> accessModes, boolean nodeLocal, boolean expandable) {
    return new StorageDescription(accessModes, nodeLocal, expandable);
  }
}
