package dev.runkora.spi.runtime;

import java.nio.file.Path;
import java.util.Objects;

/**
 * What the host gives a runtime when it creates one.
 *
 * @param stateDirectory a directory (mode 0700) that belongs to this runtime alone and survives
 *     restarts of the host; the runtime keeps there what it needs to find its sandboxes again
 * @param logger where the runtime logs; never log a secret
 */
public record RuntimeContext(Path stateDirectory, System.Logger logger) {

  /** Checks for nulls. */
  public RuntimeContext {
    Objects.requireNonNull(stateDirectory, "stateDirectory");
    Objects.requireNonNull(logger, "logger");
  }
}
