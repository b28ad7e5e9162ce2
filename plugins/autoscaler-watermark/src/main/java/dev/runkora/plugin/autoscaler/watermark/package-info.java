/**
 * The {@code watermark} autoscaler plugin. Internal: only the provider is reached, via its service.
 */
package dev.runkora.plugin.autoscaler.watermark;
