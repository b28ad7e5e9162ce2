package dev.runkora.api;

import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Body of {@code POST /v1/claim}.
 *
 * @param template image or template name (required)
 * @param net {@code none} (default) or {@code egress}
 * @param size size tier, default {@code small}
 * @param ttlSeconds lease length; 0 asks for the server default (300 s)
 * @param claimRef opaque caller reference echoed in listings; empty for none
 * @param noRedirect answer for this node only (set when following a mesh redirect)
 * @param env kora extension: environment added to every exec in the sandbox; empty for none
 * @param mounts kora extension: host paths and workspaces bound in at claim time; empty for none
 */
public record ClaimRequest(
    String template,
    String net,
    String size,
    long ttlSeconds,
    String claimRef,
    boolean noRedirect,
    Map<String, String> env,
    List<ClaimMount> mounts) {

  /** Validates what a server would reject anyway and normalizes absent values. */
  public ClaimRequest {
    Objects.requireNonNull(template, "template");
    if (template.isEmpty()) {
      throw new IllegalArgumentException("template is required");
    }
    if (ttlSeconds < 0) {
      throw new IllegalArgumentException("ttl_seconds must not be negative: " + ttlSeconds);
    }
    net = net == null || net.isEmpty() ? PoolKey.DEFAULT_NET : net;
    size = size == null || size.isEmpty() ? PoolKey.DEFAULT_SIZE : size;
    claimRef = Wire.nonNull(claimRef);
    env = env == null ? Map.of() : Map.copyOf(env);
    mounts = mounts == null ? List.of() : List.copyOf(mounts);
  }

  /** A claim of {@code template} with every other field at its default. */
  public static ClaimRequest of(String template) {
    return new ClaimRequest(template, "", "", 0, "", false, Map.of(), List.of());
  }

  /** A claim of the given pool key. */
  public static ClaimRequest of(PoolKey key) {
    return new ClaimRequest(
        key.template(), key.net(), key.size(), 0, "", false, Map.of(), List.of());
  }

  /** This request with another lease length. */
  public ClaimRequest withTtlSeconds(long ttl) {
    return new ClaimRequest(template, net, size, ttl, claimRef, noRedirect, env, mounts);
  }

  /** This request with another caller reference. */
  public ClaimRequest withClaimRef(String ref) {
    return new ClaimRequest(template, net, size, ttlSeconds, ref, noRedirect, env, mounts);
  }

  /** This request with {@code no_redirect} set. */
  public ClaimRequest withNoRedirect(boolean value) {
    return new ClaimRequest(template, net, size, ttlSeconds, claimRef, value, env, mounts);
  }

  /** This request with claim-time environment (kora extension). */
  public ClaimRequest withEnv(Map<String, String> values) {
    return new ClaimRequest(template, net, size, ttlSeconds, claimRef, noRedirect, values, mounts);
  }

  /** This request with claim-time mounts (kora extension). */
  public ClaimRequest withMounts(List<ClaimMount> values) {
    return new ClaimRequest(template, net, size, ttlSeconds, claimRef, noRedirect, env, values);
  }

  /** The pool key this claim asks for. */
  public PoolKey key() {
    return new PoolKey(template, net, size);
  }

  /** The request body; fields at their default are left out. */
  public JsonObject toJson() {
    JsonObjectBuilder b = Wire.object().add("template", template).add("net", net).add("size", size);
    if (ttlSeconds != 0) {
      b.add("ttl_seconds", ttlSeconds);
    }
    if (!claimRef.isEmpty()) {
      b.add("claim_ref", claimRef);
    }
    if (noRedirect) {
      b.add("no_redirect", true);
    }
    if (!env.isEmpty()) {
      b.add("env", Wire.stringObject(env));
    }
    if (!mounts.isEmpty()) {
      var array = Wire.array();
      mounts.forEach(m -> array.add(m.toJson()));
      b.add("mounts", array);
    }
    return b.build();
  }

  /** Reads a claim body; unknown fields are ignored, as the contract says for claim. */
  public static ClaimRequest fromJson(JsonObject o) {
    return new ClaimRequest(
        Wire.requiredString(o, "template"),
        Wire.string(o, "net"),
        Wire.string(o, "size"),
        Wire.number(o, "ttl_seconds"),
        Wire.string(o, "claim_ref"),
        Wire.bool(o, "no_redirect"),
        Wire.stringMap(o, "env"),
        Wire.objects(o, "mounts").stream().map(ClaimMount::fromJson).toList());
  }
}
