/**
 * The {@code watermark} autoscaler: a demand-adaptive warm-pool target. While claims arrive faster
 * than the measured provisioning lead time covers, a pool's target rises from its floor ({@code
 * warm}) toward its ceiling ({@code warm_max}); after about a minute without claims it is back at
 * the floor. For a cluster it holds the configured placeholder replicas plus, while sandboxes are
 * pending, up to as many again.
 */
module dev.runkora.plugin.autoscaler.watermark {
  requires dev.runkora.spi.autoscaler;

  provides dev.runkora.spi.autoscaler.AutoscalerProvider with
      dev.runkora.plugin.autoscaler.watermark.WatermarkAutoscalerProvider;
}
