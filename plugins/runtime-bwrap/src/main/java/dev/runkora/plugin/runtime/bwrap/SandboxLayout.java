package dev.runkora.plugin.runtime.bwrap;

import java.nio.file.Path;

/**
 * Where one sandbox's files live on the host: everything below {@code <state>/sandboxes/<name>}, so
 * deleting a sandbox is unmounting below that directory and removing it.
 *
 * @param dir the sandbox's directory
 * @param upper the overlay's writable layer
 * @param work overlayfs's work directory, on the same filesystem as {@code upper}
 */
record SandboxLayout(Path dir, Path upper, Path work) {

  /** Returns the layout of a sandbox below a runtime's state directory. */
  static SandboxLayout of(Path sandboxesDir, String name) {
    var dir = sandboxesDir.resolve(name);
    return new SandboxLayout(dir, dir.resolve("upper"), dir.resolve("work"));
  }

  /** Returns the same layout with the writable layer on the tmpfs at {@link #layer()}. */
  SandboxLayout onTmpfs() {
    return new SandboxLayout(dir, layer().resolve("upper"), layer().resolve("work"));
  }

  /** The overlay mount point: the sandbox's {@code /}. */
  Path root() {
    return dir.resolve("root");
  }

  /** Where a tmpfs holds the writable layer when the disk cannot. */
  Path layer() {
    return dir.resolve("layer");
  }

  /** The shared mount point whose sub-mounts propagate into the running sandbox. */
  Path live() {
    return dir.resolve("live");
  }

  /** Where the host puts exec requests for the sandbox's agent (inside: below the live area). */
  Path execDir() {
    return live().resolve("exec");
  }

  /** The named pipe on which the sandbox's agent reports that it takes requests. */
  Path readyPipe() {
    return execDir().resolve("ready");
  }

  /** The sandbox's recorded state (see {@link SandboxState}). */
  Path stateFile() {
    return dir.resolve("state.properties");
  }

  /** bubblewrap's own output: its error when the sandbox could not be made. */
  Path logFile() {
    return dir.resolve("bwrap.log");
  }
}
