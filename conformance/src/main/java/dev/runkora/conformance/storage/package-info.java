/**
 * Conformance suites for the storage SPI, one abstract class per capability area: {@link
 * dev.runkora.conformance.storage.StorageProvisioningSuite} (provision, find, list, release, their
 * idempotency and rejections, survival across a restart), {@link
 * dev.runkora.conformance.storage.StorageExpansionSuite} (or UNSUPPORTED without {@code EXPANSION})
 * and {@link dev.runkora.conformance.storage.StorageSizeSuite} (enforced sizes where declared or
 * described, honest reporting where not, measured use). A plugin's test extends each one and
 * returns its provider and, where it needs one, a configuration.
 */
package dev.runkora.conformance.storage;
