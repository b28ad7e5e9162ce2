package dev.runkora.spi.runtime;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Everything a runtime needs to create one sandbox. The host builds it.
 *
 * @param name the sandbox's name, unique on this runtime; {@code [a-z0-9][a-z0-9_-]{0,62}}. The
 *     host gives every sandbox it owns a common prefix, so it can tell its own sandboxes from
 *     others' in {@link SandboxRuntime#list()}.
 * @param rootFilesystem the directory that becomes {@code /}; shared between sandboxes and never
 *     written to by the runtime. Writes inside the sandbox go to a private copy-on-write layer when
 *     {@link #writableRoot} is true, and fail otherwise.
 * @param writableRoot whether the sandbox may write to {@code /} (into its own layer)
 * @param mounts host paths bound into the sandbox, in order, after the root
 * @param limits resource limits
 * @param network the network the sandbox gets
 * @param env the base environment of every process in the sandbox
 * @param workingDirectory the default working directory of commands, an absolute sandbox path
 */
public record SandboxSpec(
    String name,
    Path rootFilesystem,
    boolean writableRoot,
    List<MountSpec> mounts,
    ResourceLimits limits,
    NetworkMode network,
    Map<String, String> env,
    String workingDirectory) {

  private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9_-]{0,62}");

  /** Checks the name and copies the collections. */
  public SandboxSpec {
    Objects.requireNonNull(name, "name");
    if (!NAME.matcher(name).matches()) {
      throw new IllegalArgumentException("sandbox name must match " + NAME + ": " + name);
    }
    Objects.requireNonNull(rootFilesystem, "rootFilesystem");
    mounts = List.copyOf(mounts);
    Objects.requireNonNull(limits, "limits");
    Objects.requireNonNull(network, "network");
    env = Map.copyOf(env);
    Objects.requireNonNull(workingDirectory, "workingDirectory");
  }
}
