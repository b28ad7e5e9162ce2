/**
 * The runtime extension point: how an isolated process tree is started from a root filesystem, with
 * limits, and how commands run inside it.
 *
 * <p>The node daemon ({@code dev.runkora.sandboxd}) {@code uses} {@link
 * dev.runkora.spi.runtime.RuntimeProvider}; plugins such as {@code bwrap} and {@code process}
 * {@code provides} it.
 */
module dev.runkora.spi.runtime {
  requires transitive dev.runkora.spi.core;

  exports dev.runkora.spi.runtime;
}
