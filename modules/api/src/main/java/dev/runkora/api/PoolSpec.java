package dev.runkora.api;

import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import java.util.List;

/**
 * One entry of the {@code PUT /v1/pools} body.
 *
 * @param key the pool key
 * @param warm static target and floor (never defaulted by PUT)
 * @param warmMax above 0 enables the demand-adaptive watermark up to this many
 * @param idleHibernateSeconds 0 for off (advanced)
 */
public record PoolSpec(PoolKey key, int warm, int warmMax, long idleHibernateSeconds) {

  /** Rejects what the server rejects. */
  public PoolSpec {
    if (warm < 0) {
      throw new IllegalArgumentException("warm must not be negative");
    }
    if (warmMax != 0 && warmMax < warm) {
      throw new IllegalArgumentException("warm_max must not be below warm");
    }
    if (idleHibernateSeconds < 0) {
      throw new IllegalArgumentException("idle_hibernate_seconds must not be negative");
    }
  }

  /** A static pool of {@code warm} sandboxes. */
  public static PoolSpec of(PoolKey key, int warm) {
    return new PoolSpec(key, warm, 0, 0);
  }

  /** The entry; the body is strict, so only set fields beside the key and warm are written. */
  public JsonObject toJson() {
    JsonObjectBuilder b =
        Wire.object()
            .add("template", key.template())
            .add("net", key.net())
            .add("size", key.size())
            .add("warm", warm);
    if (warmMax != 0) {
      b.add("warm_max", warmMax);
    }
    if (idleHibernateSeconds != 0) {
      b.add("idle_hibernate_seconds", idleHibernateSeconds);
    }
    return b.build();
  }

  /** The whole {@code PUT /v1/pools} body for {@code pools}. */
  public static JsonObject body(List<PoolSpec> pools) {
    JsonArrayBuilder a = Wire.array();
    pools.forEach(p -> a.add(p.toJson()));
    return Wire.object().add("pools", a).build();
  }

  /** Reads an entry (leniently: the server does the strict check). */
  public static PoolSpec fromJson(JsonObject o) {
    return new PoolSpec(
        new PoolKey(
            Wire.requiredString(o, "template"), Wire.string(o, "net"), Wire.string(o, "size")),
        (int) Wire.number(o, "warm"),
        (int) Wire.number(o, "warm_max"),
        Wire.number(o, "idle_hibernate_seconds"));
  }
}
