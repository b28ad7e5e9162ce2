package dev.runkora.spi.core;

import java.util.Set;

/**
 * What every provider of every SPI tells the plugin host before anything is created: its name and
 * its capabilities. Each SPI's provider interface extends this one and adds its own {@code
 * create(config, context)}.
 *
 * <p>Providers are found with {@link java.util.ServiceLoader}, so an implementation has a public
 * no-argument constructor (or a public static {@code provider()} method) that does no I/O. All
 * methods are cheap, side-effect free and safe to call from any thread.
 *
 * @param <C> the capability enum of the extension point
 */
public interface PluginProvider<C extends Enum<C>> {

  /**
   * Returns the stable lower-case name used in configuration to select this provider, such as
   * {@code bwrap} or {@code oci}. It matches {@code [a-z][a-z0-9-]*} and never changes between
   * releases.
   */
  String name();

  /**
   * Returns what the backends this provider creates can do. A call that needs a capability not in
   * this set fails with {@link ErrorKind#UNSUPPORTED}; the conformance suites check both sides.
   */
  Set<C> capabilities();

  /** Returns one sentence for {@code kora info} and start-up logs: what this plugin is for. */
  String description();
}
