/**
 * Conformance suites for the autoscaler SPI, one abstract class per capability area: {@link
 * dev.runkora.conformance.autoscaler.AutoscalerWarmPoolSuite} (bounds over random demand, static
 * pools, non-adaptive targets, UNSUPPORTED without {@code WARM_POOL}), {@link
 * dev.runkora.conformance.autoscaler.AutoscalerAdaptiveSuite} (rise, cap, decay on a {@link
 * dev.runkora.conformance.autoscaler.ManualClock}) and {@link
 * dev.runkora.conformance.autoscaler.AutoscalerPlaceholderSuite}. A plugin's test extends each one
 * (as {@code @Nested} classes of one test class) and returns its provider; the tests that apply
 * follow the provider's declared capabilities.
 */
package dev.runkora.conformance.autoscaler;
