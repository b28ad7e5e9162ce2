/**
 * The {@code static} autoscaler: every warm pool holds exactly its configured floor, and the
 * cluster holds exactly the configured placeholder replicas. Nothing adapts to demand; choose it
 * when capacity should be predictable.
 *
 * <p>The module is {@code staticpool} because {@code static} is a Java keyword and cannot name a
 * module or package; the provider's configured name is {@code static}.
 */
module dev.runkora.plugin.autoscaler.staticpool {
  requires dev.runkora.spi.autoscaler;

  provides dev.runkora.spi.autoscaler.AutoscalerProvider with
      dev.runkora.plugin.autoscaler.staticpool.StaticAutoscalerProvider;
}
