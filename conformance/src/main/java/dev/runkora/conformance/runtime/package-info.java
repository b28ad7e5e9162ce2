/** Conformance suites for the runtime SPI. */
package dev.runkora.conformance.runtime;
