package dev.runkora.sandboxd.engine;

import java.util.List;
import java.util.Map;

/**
 * A checked claim.
 *
 * @param key the pool key
 * @param ttlSeconds the requested lease (0 = default)
 * @param claimRef the caller's reference
 * @param env variables added to every exec (kora extension)
 * @param mounts mounts to bind at claim time (kora extension)
 */
public record ClaimRequest(
    PoolKey key,
    long ttlSeconds,
    String claimRef,
    Map<String, String> env,
    List<MountRequest> mounts) {

  /** Copies the collections. */
  public ClaimRequest {
    env = Map.copyOf(env);
    mounts = List.copyOf(mounts);
  }

  /**
   * One claim-time mount: either a host path or a storage workspace.
   *
   * @param hostPath an absolute host path, or empty
   * @param workspace a workspace name, or empty
   * @param sizeBytes the workspace's size when it has to be provisioned
   * @param path the absolute path inside the sandbox
   * @param readOnly whether the sandbox may only read it
   */
  public record MountRequest(
      String hostPath, String workspace, long sizeBytes, String path, boolean readOnly) {}
}
