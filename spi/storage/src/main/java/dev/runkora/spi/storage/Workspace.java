package dev.runkora.spi.storage;

import java.nio.file.Path;
import java.util.Objects;

/**
 * A provisioned workspace. Built by plugins through {@link #of}.
 *
 * @param name its name
 * @param sizeBytes its size limit
 * @param accessMode its access mode
 * @param path where it is on this node, to bind into a sandbox
 * @param sizeEnforced whether writes beyond the size fail (false: the size is only reported)
 * @param usedBytes bytes in use, or -1 when not measured
 */
public record Workspace(
    String name,
    long sizeBytes,
    AccessMode accessMode,
    Path path,
    boolean sizeEnforced,
    long usedBytes) {

  /** Checks for nulls. */
  public Workspace {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(accessMode, "accessMode");
    Objects.requireNonNull(path, "path");
  }

  /** Returns a workspace. */
  public static Workspace of(
      String name,
      long sizeBytes,
      AccessMode accessMode,
      Path path,
      boolean sizeEnforced,
      long usedBytes) {
    return new Workspace(name, sizeBytes, accessMode, path, sizeEnforced, usedBytes);
  }
}
