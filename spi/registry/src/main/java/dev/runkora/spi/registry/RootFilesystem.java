package dev.runkora.spi.registry;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A root filesystem ready for a sandbox: a directory, plus host directories that must be bound
 * read-only on top of it (the {@code host} template is an empty root with the host's {@code /usr},
 * {@code /bin}, {@code /lib*} and {@code /etc} bound in). Built by plugins through {@link #of}.
 *
 * <p>The directory is shared by every sandbox of the image and must not be written to; a runtime
 * gives each sandbox its own writable layer.
 *
 * @param reference the reference it was made from
 * @param digest the manifest digest it was made from, or {@code host} for the host template
 * @param directory the root directory
 * @param readOnlyBinds host directory to sandbox path, bound read-only, in order
 * @param env the image's environment (from its config), such as {@code PATH}
 * @param workingDirectory the image's working directory, or {@code /}
 */
public record RootFilesystem(
    ImageReference reference,
    String digest,
    Path directory,
    Map<Path, String> readOnlyBinds,
    Map<String, String> env,
    String workingDirectory) {

  /** Checks for nulls and copies the maps (keeping their order). */
  public RootFilesystem {
    Objects.requireNonNull(reference, "reference");
    Objects.requireNonNull(digest, "digest");
    Objects.requireNonNull(directory, "directory");
    readOnlyBinds =
        java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(readOnlyBinds));
    env = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(env));
    Objects.requireNonNull(workingDirectory, "workingDirectory");
  }

  /** Returns a root filesystem. */
  public static RootFilesystem of(
      ImageReference reference,
      String digest,
      Path directory,
      Map<Path, String> readOnlyBinds,
      Map<String, String> env,
      String workingDirectory) {
    return new RootFilesystem(reference, digest, directory, readOnlyBinds, env, workingDirectory);
  }

  /** Returns the binds as a list of entries, bottom first. */
  public List<Map.Entry<Path, String>> binds() {
    return List.copyOf(readOnlyBinds.entrySet());
  }
}
