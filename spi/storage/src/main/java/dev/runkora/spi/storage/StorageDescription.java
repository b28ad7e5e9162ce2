package dev.runkora.spi.storage;

import java.util.Set;

/**
 * What a storage class offers, for placement decisions and for the chart's checks. Built by plugins
 * through {@link #of}.
 *
 * <p>A provider's capabilities say what its plugin can do in some configuration; a description says
 * what this live class, as configured, does. {@link #sizeEnforced()} is the one property that
 * depends on configuration today (a plugin may enforce sizes only in one mode).
 *
 * @param accessModes the access modes its workspaces support
 * @param nodeLocal whether workspaces live on one node's disk
 * @param expandable whether workspaces can grow in place
 * @param sizeEnforced whether writes beyond a workspace's size fail in this configuration ({@link
 *     StorageCapability#SIZE_ENFORCED} as configured)
 */
public record StorageDescription(
    Set<AccessMode> accessModes, boolean nodeLocal, boolean expandable, boolean sizeEnforced) {

  /** Copies the access modes. */
  public StorageDescription {
    accessModes = Set.copyOf(accessModes);
  }

  /** Returns a description of a class that does not enforce sizes. */
  public static StorageDescription of(
      Set<AccessMode> accessModes, boolean nodeLocal, boolean expandable) {
    return new StorageDescription(accessModes, nodeLocal, expandable, false);
  }

  /** Returns a description. */
  public static StorageDescription of(
      Set<AccessMode> accessModes, boolean nodeLocal, boolean expandable, boolean sizeEnforced) {
    return new StorageDescription(accessModes, nodeLocal, expandable, sizeEnforced);
  }
}
