package dev.runkora.spi.storage;

/** Who may use a workspace at once; the names are Kubernetes' access modes. */
public enum AccessMode {
  /** Read-write from one node at a time (co-located placement). */
  READ_WRITE_ONCE,
  /** Read-write from many nodes at once (separate sandbox pool). */
  READ_WRITE_MANY,
  /** Read-only from many nodes. */
  READ_ONLY_MANY;

  /** Returns the Kubernetes spelling, such as {@code ReadWriteMany}. */
  public String kubernetesName() {
    return switch (this) {
      case READ_WRITE_ONCE -> "ReadWriteOnce";
      case READ_WRITE_MANY -> "ReadWriteMany";
      case READ_ONLY_MANY -> "ReadOnlyMany";
    };
  }
}
