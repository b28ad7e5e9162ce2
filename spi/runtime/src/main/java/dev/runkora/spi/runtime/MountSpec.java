package dev.runkora.spi.runtime;

import java.nio.file.Path;
import java.util.Objects;

/**
 * A host path made visible inside a sandbox.
 *
 * @param hostPath an existing absolute path on the host (a directory or a file)
 * @param sandboxPath the absolute path inside the sandbox
 * @param readOnly whether the sandbox may write through it
 */
public record MountSpec(Path hostPath, String sandboxPath, boolean readOnly) {

  /** Checks that both paths are absolute. */
  public MountSpec {
    Objects.requireNonNull(hostPath, "hostPath");
    Objects.requireNonNull(sandboxPath, "sandboxPath");
    if (!hostPath.isAbsolute() || !sandboxPath.startsWith("/")) {
      throw new IllegalArgumentException(
          "mount paths are absolute: " + hostPath + " -> " + sandboxPath);
    }
  }

  /** Returns a read-only mount. */
  public static MountSpec readOnly(Path hostPath, String sandboxPath) {
    return new MountSpec(hostPath, sandboxPath, true);
  }

  /** Returns a read-write mount. */
  public static MountSpec readWrite(Path hostPath, String sandboxPath) {
    return new MountSpec(hostPath, sandboxPath, false);
  }
}
