package dev.runkora.api;

import jakarta.json.JsonObject;

/**
 * One pool in {@code GET /v1/info}.
 *
 * @param key the pool key
 * @param warm claim-ready sandboxes now
 * @param refilling sandboxes being provisioned for the pool now
 * @param target the current warm watermark
 * @param golden whether the pool's template is ready to provision from
 */
public record PoolStatus(PoolKey key, int warm, int refilling, int target, boolean golden) {

  /** Whether the pool holds as many warm sandboxes as its target. */
  public boolean isFull() {
    return warm >= target;
  }

  /** The pool object. */
  public JsonObject toJson() {
    return Wire.object()
        .add("key", key.toJson())
        .add("warm", warm)
        .add("refilling", refilling)
        .add("target", target)
        .add("golden", golden)
        .build();
  }

  /** Reads a pool object. */
  public static PoolStatus fromJson(JsonObject o) {
    return new PoolStatus(
        PoolKey.fromJson(Wire.objectField(o, "key")),
        (int) Wire.number(o, "warm"),
        (int) Wire.number(o, "refilling"),
        (int) Wire.number(o, "target"),
        Wire.bool(o, "golden"));
  }
}
