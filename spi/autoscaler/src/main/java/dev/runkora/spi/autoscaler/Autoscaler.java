package dev.runkora.spi.autoscaler;

/**
 * A live autoscaler. It may keep per-pool history between calls (the {@code watermark} plugin
 * does), keyed by {@link PoolDemand#pool()}.
 *
 * <p>The node daemon calls {@link #warmTarget} for each pool after every claim and on a timer
 * (about once a second), possibly from several threads for different pools; calls for one pool are
 * not concurrent. Calls are cheap and do no I/O.
 */
public interface Autoscaler extends AutoCloseable {

  /**
   * Decides how many warm sandboxes a pool should hold now. Needs {@link
   * AutoscalerCapability#WARM_POOL}.
   *
   * @return a target between {@link PoolDemand#floor()} and {@code max(floor, ceiling)}
   * @throws dev.runkora.spi.core.KoraException {@code UNSUPPORTED} without the capability
   */
  int warmTarget(PoolDemand demand);

  /**
   * Forgets the history of a pool that was removed. Idempotent.
   *
   * @param pool the pool's key
   */
  void forget(String pool);

  /**
   * Decides the placeholder pods that hold cluster nodes open. Needs {@link
   * AutoscalerCapability#PLACEHOLDERS}; called by the operator on each reconcile.
   *
   * @throws dev.runkora.spi.core.KoraException {@code UNSUPPORTED} without the capability
   */
  PlaceholderPlan placeholders(ClusterDemand demand);

  /** Releases what the autoscaler holds. Idempotent. */
  @Override
  default void close() {}
}
