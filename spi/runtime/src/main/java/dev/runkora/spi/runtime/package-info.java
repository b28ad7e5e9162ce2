/**
 * The runtime SPI. A {@link dev.runkora.spi.runtime.RuntimeProvider} creates a {@link
 * dev.runkora.spi.runtime.SandboxRuntime}, which creates, enters, measures and removes sandboxes
 * described by a {@link dev.runkora.spi.runtime.SandboxSpec}.
 */
package dev.runkora.spi.runtime;
