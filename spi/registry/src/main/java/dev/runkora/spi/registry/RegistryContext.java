package dev.runkora.spi.registry;

import java.nio.file.Path;
import java.util.Objects;

/**
 * What the host gives a registry plugin when it creates one.
 *
 * @param cacheDirectory a directory (mode 0700) that belongs to this plugin and survives restarts;
 *     the content-addressed cache and unpacked root filesystems live here
 * @param settings mirrors, ports and plain-HTTP hosts
 * @param logger where the plugin logs; never log a credential
 */
public record RegistryContext(
    Path cacheDirectory, RegistrySettings settings, System.Logger logger) {

  /** Checks for nulls. */
  public RegistryContext {
    Objects.requireNonNull(cacheDirectory, "cacheDirectory");
    Objects.requireNonNull(settings, "settings");
    Objects.requireNonNull(logger, "logger");
  }
}
