/**
 * The autoscaler SPI. An {@link dev.runkora.spi.autoscaler.AutoscalerProvider} creates an {@link
 * dev.runkora.spi.autoscaler.Autoscaler}, which turns {@link dev.runkora.spi.autoscaler.PoolDemand}
 * into a warm target and {@link dev.runkora.spi.autoscaler.ClusterDemand} into a {@link
 * dev.runkora.spi.autoscaler.PlaceholderPlan}.
 */
package dev.runkora.spi.autoscaler;
