/** Conformance suites for the autoscaler SPI. */
package dev.runkora.conformance.autoscaler;
