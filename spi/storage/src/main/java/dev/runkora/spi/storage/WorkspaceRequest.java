package dev.runkora.spi.storage;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A workspace to provision. The host builds it.
 *
 * @param name the workspace's name, unique in the class; {@code [a-z0-9][a-z0-9._-]{0,62}}
 * @param sizeBytes how large it may grow; positive
 * @param accessMode how it will be used
 */
public record WorkspaceRequest(String name, long sizeBytes, AccessMode accessMode) {

  private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9._-]{0,62}");

  /** Checks the name and size. */
  public WorkspaceRequest {
    Objects.requireNonNull(name, "name");
    if (!NAME.matcher(name).matches()) {
      throw new IllegalArgumentException("workspace name must match " + NAME + ": " + name);
    }
    if (sizeBytes <= 0) {
      throw new IllegalArgumentException("workspace size must be positive: " + sizeBytes);
    }
    Objects.requireNonNull(accessMode, "accessMode");
  }
}
