package dev.runkora.spi.storage;

/** What a {@link StorageClass} can do. */
public enum StorageCapability {
  /** Workspaces live on this node's disk (fast, not reachable from other nodes by themselves). */
  NODE_LOCAL,
  /** Workspaces can be used from several nodes at once ({@link AccessMode#READ_WRITE_MANY}). */
  SHARED,
  /**
   * {@link WorkspaceRequest#sizeBytes()} is enforced in every configuration: writes beyond it fail.
   * A plugin that enforces sizes only when configured to leaves this out and reports it through
   * {@link StorageDescription#sizeEnforced()} and {@link Workspace#sizeEnforced()}.
   */
  SIZE_ENFORCED,
  /** {@link StorageClass#expand} grows a workspace in place. */
  EXPANSION,
  /** {@link Workspace#usedBytes()} is measured. */
  USAGE
}
