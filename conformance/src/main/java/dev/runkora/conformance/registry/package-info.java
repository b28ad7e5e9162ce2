/** Conformance suites for the registry SPI. */
package dev.runkora.conformance.registry;
