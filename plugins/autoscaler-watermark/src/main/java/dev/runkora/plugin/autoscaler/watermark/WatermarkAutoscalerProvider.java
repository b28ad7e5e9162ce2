package dev.runkora.plugin.autoscaler.watermark;

import dev.runkora.spi.autoscaler.Autoscaler;
import dev.runkora.spi.autoscaler.AutoscalerCapability;
import dev.runkora.spi.autoscaler.AutoscalerContext;
import dev.runkora.spi.autoscaler.AutoscalerProvider;
import dev.runkora.spi.core.KoraException;
import dev.runkora.spi.core.PluginConfig;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;

/**
 * Provides the {@code watermark} autoscaler.
 *
 * <p>Settings:
 *
 * <ul>
 *   <li>{@code decay} (default {@code 60s}): how long a raised target takes to fall back to the
 *       floor once claims stop; it falls linearly over that time.
 *   <li>{@code headroom} (default {@code 1}): warm sandboxes added to the computed need while there
 *       is demand, so that the next claim finds one.
 *   <li>{@code placeholder-burst} (default: the configured replicas): at most this many placeholder
 *       pods are added for pending sandboxes, on top of the configured replicas.
 * </ul>
 */
public final class WatermarkAutoscalerProvider implements AutoscalerProvider {

  static final String NAME = "watermark";

  /** Creates the provider; ServiceLoader calls this. */
  public WatermarkAutoscalerProvider() {}

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public Set<AutoscalerCapability> capabilities() {
    return EnumSet.of(
        AutoscalerCapability.WARM_POOL,
        AutoscalerCapability.ADAPTIVE,
        AutoscalerCapability.PLACEHOLDERS);
  }

  @Override
  public String description() {
    return "Raises a warm pool toward its ceiling while claims outpace provisioning; decays to the"
        + " floor after a quiet minute.";
  }

  @Override
  public Autoscaler create(PluginConfig config, AutoscalerContext context) {
    config.requireKnownKeys(NAME, Set.of("decay", "headroom", "placeholder-burst"));
    var decay = config.duration("decay", Duration.ofSeconds(60));
    if (decay.isNegative() || decay.isZero()) {
      throw KoraException.invalidArgument(
          "setting 'decay' of autoscaler 'watermark' must be positive, not %s", decay);
    }
    long headroom = config.longValue("headroom", 1);
    if (headroom < 0 || headroom > 1_000) {
      throw KoraException.invalidArgument(
          "setting 'headroom' of autoscaler 'watermark' must be between 0 and 1000, not %d",
          headroom);
    }
    long burst = config.longValue("placeholder-burst", -1);
    if (burst < -1 || burst > 10_000) {
      throw KoraException.invalidArgument(
          "setting 'placeholder-burst' of autoscaler 'watermark' must be between 0 and 10000, not"
              + " %d",
          burst);
    }
    return new WatermarkAutoscaler(context.clock(), decay, (int) headroom, (int) burst);
  }
}
