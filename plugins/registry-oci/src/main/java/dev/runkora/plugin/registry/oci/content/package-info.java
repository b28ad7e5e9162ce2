/**
 * The image content both OCI plugins share: the content-addressed {@link
 * dev.runkora.plugin.registry.oci.content.ImageCache}, manifest parsing and the {@link
 * dev.runkora.plugin.registry.oci.content.LayerUnpacker}. Exported only to {@code
 * dev.runkora.plugin.registry.ocilayout}.
 */
package dev.runkora.plugin.registry.oci.content;
