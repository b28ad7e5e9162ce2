/**
 * The image-registry SPI. A {@link dev.runkora.spi.registry.RegistryProvider} creates an {@link
 * dev.runkora.spi.registry.ImageRegistry}, which turns an {@link
 * dev.runkora.spi.registry.ImageReference} into a {@link dev.runkora.spi.registry.RootFilesystem}.
 */
package dev.runkora.spi.registry;
