package dev.runkora.sandboxd.engine;

import java.util.Objects;

/**
 * A mount granted at claim time (a kora extension).
 *
 * @param hostPath the host path bound into the sandbox
 * @param path the path inside the sandbox
 * @param readOnly whether the sandbox may only read it
 * @param workspace the storage workspace it came from, or empty for a host path
 */
public record ClaimMount(String hostPath, String path, boolean readOnly, String workspace) {

  /** Checks for nulls. */
  public ClaimMount {
    Objects.requireNonNull(hostPath, "hostPath");
    Objects.requireNonNull(path, "path");
    Objects.requireNonNull(workspace, "workspace");
  }
}
