/**
 * The storage-class SPI. A {@link dev.runkora.spi.storage.StorageProvider} creates a {@link
 * dev.runkora.spi.storage.StorageClass}, which provisions {@link
 * dev.runkora.spi.storage.Workspace}s.
 */
package dev.runkora.spi.storage;
