package dev.runkora.spi.autoscaler;

/** What an {@link Autoscaler} can do. */
public enum AutoscalerCapability {
  /** {@link Autoscaler#warmTarget} decides warm-pool targets on a node. */
  WARM_POOL,
  /**
   * The warm target follows demand between {@link PoolDemand#floor()} and {@link
   * PoolDemand#ceiling()}.
   */
  ADAPTIVE,
  /** {@link Autoscaler#placeholders} decides placeholder pods that hold cluster nodes open. */
  PLACEHOLDERS
}
