/**
 * The autoscaler extension point: how much warm capacity to hold, and in what form. The node daemon
 * asks it for warm-pool targets; the operator asks it for placeholder capacity.
 *
 * <p>Plugins such as {@code static} and {@code watermark} provide {@link
 * dev.runkora.spi.autoscaler.AutoscalerProvider}.
 */
module dev.runkora.spi.autoscaler {
  requires transitive dev.runkora.spi.core;

  exports dev.runkora.spi.autoscaler;
}
