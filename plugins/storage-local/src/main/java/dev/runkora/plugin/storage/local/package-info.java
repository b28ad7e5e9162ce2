/** The {@code local} storage plugin. Internal: only the provider is reached, via its service. */
package dev.runkora.plugin.storage.local;
