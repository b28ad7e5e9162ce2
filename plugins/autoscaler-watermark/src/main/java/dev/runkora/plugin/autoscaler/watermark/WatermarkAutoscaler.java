package dev.runkora.plugin.autoscaler.watermark;

import dev.runkora.spi.autoscaler.Autoscaler;
import dev.runkora.spi.autoscaler.ClusterDemand;
import dev.runkora.spi.autoscaler.PlaceholderPlan;
import dev.runkora.spi.autoscaler.PoolDemand;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The demand-adaptive warm-pool target.
 *
 * <p>For each call the pool's need is {@code ceil(arrivalsPerSecond × leadTime + pending)}, plus
 * {@code headroom} when there is any demand at all: enough warm sandboxes to serve the claims that
 * arrive while one more is being made. The target is the larger of that need and the last peak
 * decayed linearly toward the floor over {@code decay}; a need at or above the decayed level sets a
 * new peak. So the target rises at once with demand, holds while demand lasts, and is back at the
 * floor one decay period after the last claim. It is always clamped to {@code [floor, max(floor,
 * ceiling)]}, and a ceiling of 0 (or one equal to the floor) is a static pool.
 *
 * <p>Time comes only from the context's clock. A clock that steps back counts as no time passing.
 * Calls for different pools may run on different threads; one pool's state is touched inside {@link
 * ConcurrentHashMap#compute}, so they never interfere.
 */
final class WatermarkAutoscaler implements Autoscaler {

  /** A pool's last peak: the target it was raised to and when demand last held it there. */
  private record Peak(int target, Instant at) {}

  private final InstantSource clock;
  private final Duration decay;
  private final int headroom;
  private final int placeholderBurst;
  private final ConcurrentHashMap<String, Peak> peaks = new ConcurrentHashMap<>();

  WatermarkAutoscaler(InstantSource clock, Duration decay, int headroom, int placeholderBurst) {
    this.clock = clock;
    this.decay = decay;
    this.headroom = headroom;
    this.placeholderBurst = placeholderBurst;
  }

  @Override
  public int warmTarget(PoolDemand demand) {
    int floor = demand.floor();
    int ceiling = Math.max(floor, demand.ceiling());
    if (ceiling == floor) {
      peaks.remove(demand.pool());
      return floor;
    }
    var now = clock.instant();
    int need = need(demand);
    var peak =
        peaks.compute(
            demand.pool(),
            (pool, last) -> {
              int decayed = last == null ? floor : decayed(last, floor, now);
              if (need >= decayed) {
                return new Peak(clamp(need, floor, ceiling), now);
              }
              // No new peak: keep the last one (none yet stays none).
              return last;
            });
    int decayed = peak == null ? floor : decayed(peak, floor, now);
    return clamp(Math.max(decayed, need), floor, ceiling);
  }

  /** Returns the warm sandboxes the current demand calls for. */
  int need(PoolDemand demand) {
    double lead = Math.max(0, demand.provisioningLeadTime().toNanos()) / 1e9;
    double arrivals =
        Double.isFinite(demand.arrivalsPerSecond()) ? Math.max(0, demand.arrivalsPerSecond()) : 0;
    double need = arrivals * lead + Math.max(0, demand.pending());
    if (need <= 0) {
      return 0;
    }
    // Large values saturate instead of overflowing; the clamp to the ceiling follows.
    return (int) Math.min(Integer.MAX_VALUE - headroom, Math.ceil(need)) + headroom;
  }

  /** Returns a peak lowered linearly toward the floor by the time since it was held. */
  private int decayed(Peak peak, int floor, Instant now) {
    if (peak.target() <= floor) {
      return floor;
    }
    var quiet = Duration.between(peak.at(), now);
    if (quiet.isNegative()) {
      return peak.target();
    }
    if (quiet.compareTo(decay) >= 0) {
      return floor;
    }
    double left = 1.0 - (double) quiet.toNanos() / decay.toNanos();
    return floor + (int) Math.ceil((peak.target() - floor) * left);
  }

  private static int clamp(int value, int floor, int ceiling) {
    return Math.min(ceiling, Math.max(floor, value));
  }

  @Override
  public void forget(String pool) {
    peaks.remove(pool);
  }

  /**
   * Holds the configured replicas, plus one placeholder per pending sandbox up to {@code
   * placeholder-burst} more (by default as many again as configured, so at most twice the
   * configured count). Pending sandboxes show that the held capacity was too small; the extra
   * placeholders make the cluster grow ahead of the next ones. Zero configured replicas switch
   * placeholders off entirely unless a burst is configured.
   */
  @Override
  public PlaceholderPlan placeholders(ClusterDemand demand) {
    int burst = placeholderBurst < 0 ? demand.configuredReplicas() : placeholderBurst;
    int extra = Math.min(demand.pendingSandboxes(), burst);
    return PlaceholderPlan.of(demand.configuredReplicas() + extra, demand.priority());
  }
}
