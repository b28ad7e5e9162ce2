package dev.runkora.spi.storage;

import java.nio.file.Path;
import java.util.Objects;

/**
 * What the host gives a storage plugin when it creates one.
 *
 * @param dataDirectory a directory (mode 0700) that belongs to this plugin and survives restarts
 * @param logger where the plugin logs
 */
public record StorageContext(Path dataDirectory, System.Logger logger) {

  /** Checks for nulls. */
  public StorageContext {
    Objects.requireNonNull(dataDirectory, "dataDirectory");
    Objects.requireNonNull(logger, "logger");
  }
}
