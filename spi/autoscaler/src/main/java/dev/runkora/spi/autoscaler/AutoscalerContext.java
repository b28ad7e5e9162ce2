package dev.runkora.spi.autoscaler;

import java.time.InstantSource;
import java.util.Objects;

/**
 * What the host gives an autoscaler when it creates one.
 *
 * @param clock the time source; an autoscaler never reads the system clock itself, so tests can
 *     drive time
 * @param logger where the plugin logs
 */
public record AutoscalerContext(InstantSource clock, System.Logger logger) {

  /** Checks for nulls. */
  public AutoscalerContext {
    Objects.requireNonNull(clock, "clock");
    Objects.requireNonNull(logger, "logger");
  }
}
