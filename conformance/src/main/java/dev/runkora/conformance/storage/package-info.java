/** Conformance suites for the storage SPI. */
package dev.runkora.conformance.storage;
