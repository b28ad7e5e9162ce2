/**
 * Types shared by the four kora SPIs: {@link dev.runkora.spi.core.PluginProvider}, {@link
 * dev.runkora.spi.core.PluginConfig}, {@link dev.runkora.spi.core.KoraException} and its {@link
 * dev.runkora.spi.core.ErrorKind}.
 */
package dev.runkora.spi.core;
