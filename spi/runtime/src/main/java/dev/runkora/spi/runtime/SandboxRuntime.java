package dev.runkora.spi.runtime;

import java.util.List;
import java.util.Set;

/**
 * A live runtime: creates sandboxes, runs commands in them and removes them.
 *
 * <p>The node daemon calls every method from many threads at once (claim handlers, the refill
 * workers, the reaper). Calls on different sandboxes must not block each other; calls on the same
 * sandbox may be serialised by the runtime. Sandboxes outlive the runtime object: {@link #close()}
 * leaves them running so that a restarted host can {@link #list()} and adopt them.
 */
public interface SandboxRuntime extends AutoCloseable {

  /**
   * Returns the capabilities of this runtime as it found this machine (a subset of its provider's).
   */
  Set<RuntimeCapability> capabilities();

  /**
   * Creates and starts a sandbox: its first process (an init that keeps it alive and reaps orphans)
   * runs when this returns, and {@link #exec} works at once.
   *
   * <p>Not idempotent: a second call with the same name fails.
   *
   * @throws dev.runkora.spi.core.KoraException {@code ALREADY_EXISTS} for a name in use; {@code
   *     UNSUPPORTED} for a limit or network mode the runtime does not declare; {@code
   *     INVALID_ARGUMENT} for a root filesystem or mount that does not exist; {@code
   *     RESOURCE_EXHAUSTED} when the host cannot start another; {@code INTERNAL} otherwise. On
   *     failure nothing of the sandbox is left behind.
   */
  SandboxInfo create(SandboxSpec spec);

  /**
   * Starts a command inside a running sandbox, in its namespaces, limits and root.
   *
   * @throws dev.runkora.spi.core.KoraException {@code NOT_FOUND} for an unknown or stopped sandbox;
   *     {@code INVALID_ARGUMENT} when the program or working directory does not exist in the
   *     sandbox; {@code INTERNAL} otherwise
   */
  ExecProcess exec(String name, ExecRequest request);

  /**
   * Binds a host path into a running sandbox without restarting it. Needs {@link
   * RuntimeCapability#LIVE_MOUNT}.
   *
   * @throws dev.runkora.spi.core.KoraException {@code UNSUPPORTED} without the capability; {@code
   *     NOT_FOUND} for an unknown sandbox; {@code INVALID_ARGUMENT} for a host path that does not
   *     exist
   */
  void mount(String name, MountSpec mount);

  /**
   * Measures a sandbox. Needs {@link RuntimeCapability#STATS}.
   *
   * @throws dev.runkora.spi.core.KoraException {@code UNSUPPORTED} without the capability; {@code
   *     NOT_FOUND} for an unknown sandbox
   */
  SandboxStats stats(String name);

  /**
   * Kills every process of a sandbox and keeps its files, so that {@link #delete} can still remove
   * them. Idempotent.
   *
   * @throws dev.runkora.spi.core.KoraException {@code NOT_FOUND} for an unknown sandbox
   */
  void stop(String name);

  /**
   * Removes a sandbox: its processes, mounts, cgroups and files. Idempotent: deleting an unknown
   * name succeeds, so that a host can retry after a crash.
   *
   * @throws dev.runkora.spi.core.KoraException {@code INTERNAL} when something could not be
   *     removed; the message says what is left
   */
  void delete(String name);

  /**
   * Lists every sandbox this runtime knows of on this machine, including those an earlier process
   * created. Needs {@link RuntimeCapability#ADOPT} to see an earlier process's sandboxes.
   *
   * @throws dev.runkora.spi.core.KoraException {@code UNAVAILABLE} when the listing could not be
   *     read; a failed listing is never an empty one
   */
  List<SandboxInfo> list();

  /** Releases what the runtime object holds. Leaves sandboxes running. Idempotent. */
  @Override
  void close();
}
