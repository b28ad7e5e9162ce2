package dev.runkora.spi.runtime;

import java.time.Instant;
import java.util.Objects;

/**
 * What a runtime knows of one sandbox. Built by plugins through {@link #of}.
 *
 * @param name the sandbox's name as given in its {@link SandboxSpec}
 * @param running whether its processes run (false once stopped, or when found dead)
 * @param createdAt when it was created
 */
public record SandboxInfo(String name, boolean running, Instant createdAt) {

  /** Checks for nulls. */
  public SandboxInfo {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(createdAt, "createdAt");
  }

  /** Returns the description of a sandbox. */
  public static SandboxInfo of(String name, boolean running, Instant createdAt) {
    return new SandboxInfo(name, running, createdAt);
  }
}
