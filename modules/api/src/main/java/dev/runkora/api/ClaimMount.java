package dev.runkora.api;

import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import java.util.Objects;

/**
 * A kora extension of {@code POST /v1/claim}: a host path or a storage workspace bound into the
 * sandbox at claim time (a warm sandbox too, when the runtime can bind live).
 *
 * @param hostPath an existing absolute host path (root token only); empty for a workspace
 * @param workspace a workspace name of the node's storage plugin; empty for a host path
 * @param path the absolute path inside the sandbox
 * @param readOnly whether the mount is read-only
 * @param sizeBytes the workspace's size when it is created; 0 for the daemon's default
 */
public record ClaimMount(
    String hostPath, String workspace, String path, boolean readOnly, long sizeBytes) {

  /** Exactly one of host path and workspace; an absolute sandbox path. */
  public ClaimMount {
    hostPath = Wire.nonNull(hostPath);
    workspace = Wire.nonNull(workspace);
    Objects.requireNonNull(path, "path");
    if (hostPath.isEmpty() == workspace.isEmpty()) {
      throw new IllegalArgumentException("a mount has exactly one of host_path and workspace");
    }
    if (!path.startsWith("/")) {
      throw new IllegalArgumentException("a mount path must be absolute: " + path);
    }
    if (sizeBytes < 0) {
      throw new IllegalArgumentException("size_bytes must not be negative");
    }
  }

  /** Binds a host path. */
  public static ClaimMount hostPath(String hostPath, String path, boolean readOnly) {
    return new ClaimMount(hostPath, "", path, readOnly, 0);
  }

  /** Binds a storage workspace, created with {@code sizeBytes} (0: default) when new. */
  public static ClaimMount workspace(String name, String path, long sizeBytes) {
    return new ClaimMount("", name, path, false, sizeBytes);
  }

  /** The mount object of the claim body. */
  public JsonObject toJson() {
    JsonObjectBuilder b = Wire.object();
    if (!hostPath.isEmpty()) {
      b.add("host_path", hostPath);
    } else {
      b.add("workspace", workspace);
    }
    b.add("path", path).add("mode", readOnly ? "ro" : "rw");
    if (sizeBytes > 0) {
      b.add("size_bytes", sizeBytes);
    }
    return b.build();
  }

  /** Reads a mount object. */
  public static ClaimMount fromJson(JsonObject o) {
    String mode = Wire.string(o, "mode");
    if (!mode.isEmpty() && !mode.equals("ro") && !mode.equals("rw")) {
      throw new IllegalArgumentException("mount mode must be ro or rw, not " + mode);
    }
    return new ClaimMount(
        Wire.string(o, "host_path"),
        Wire.string(o, "workspace"),
        Wire.string(o, "path"),
        mode.equals("ro"),
        Wire.number(o, "size_bytes"));
  }
}
