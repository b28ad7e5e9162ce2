package dev.runkora.spi.autoscaler;

import java.time.Duration;
import java.util.Objects;

/**
 * What the node daemon knows of one warm pool when it asks for a target. The host builds it.
 *
 * @param pool the pool's stable key, such as {@code host|none|small}
 * @param floor the configured {@code warm}: the target never goes below it
 * @param ceiling the configured {@code warm_max}; 0 means a static pool (target = floor)
 * @param arrivalsPerSecond claims of this pool per second, averaged over the last few seconds
 * @param warm claim-ready sandboxes now
 * @param provisioning sandboxes being made now
 * @param pending claims waiting (or served cold) for want of a warm sandbox since the last call
 * @param provisioningLeadTime how long making one warm sandbox takes, as measured
 */
public record PoolDemand(
    String pool,
    int floor,
    int ceiling,
    double arrivalsPerSecond,
    int warm,
    int provisioning,
    int pending,
    Duration provisioningLeadTime) {

  /** Checks the bounds. */
  public PoolDemand {
    Objects.requireNonNull(pool, "pool");
    Objects.requireNonNull(provisioningLeadTime, "provisioningLeadTime");
    if (floor < 0 || ceiling < 0 || (ceiling > 0 && ceiling < floor)) {
      throw new IllegalArgumentException(
          "need 0 <= floor <= ceiling (or ceiling 0): " + floor + ".." + ceiling);
    }
  }
}
