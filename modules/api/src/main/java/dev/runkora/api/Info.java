package dev.runkora.api;

import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import java.util.List;

/**
 * Answer of {@code GET /v1/info}, {@code PUT /v1/pools} and the drain calls.
 *
 * @param pools every configured pool
 * @param claimed live claims (hibernated and archived included)
 * @param hibernated hibernated claims
 * @param archived archived claims
 * @param draining whether the node is cordoned
 * @param atCapacity whether refill is parked because the node cannot start another sandbox
 * @param atCapacityReason why, when {@code atCapacity}; otherwise empty
 * @param peers mesh peers; empty on a single node
 */
public record Info(
    List<PoolStatus> pools,
    int claimed,
    int hibernated,
    int archived,
    boolean draining,
    boolean atCapacity,
    String atCapacityReason,
    List<String> peers) {

  /** Normalizes absent values. */
  public Info {
    pools = pools == null ? List.of() : List.copyOf(pools);
    atCapacityReason = Wire.nonNull(atCapacityReason);
    peers = peers == null ? List.of() : List.copyOf(peers);
  }

  /** Whether every pool holds its target of warm sandboxes. */
  public boolean isWarm() {
    return pools.stream().allMatch(PoolStatus::isFull);
  }

  /** The info object; fields the contract sends only when set are left out otherwise. */
  public JsonObject toJson() {
    JsonArrayBuilder poolArray = Wire.array();
    pools.forEach(p -> poolArray.add(p.toJson()));
    JsonObjectBuilder b =
        Wire.object()
            .add("pools", poolArray)
            .add("claimed", claimed)
            .add("hibernated", hibernated)
            .add("archived", archived);
    if (draining) {
      b.add("draining", true);
    }
    if (atCapacity) {
      b.add("at_capacity", true).add("at_capacity_reason", atCapacityReason);
    }
    if (!peers.isEmpty()) {
      b.add("peers", Wire.stringArray(peers));
    }
    return b.build();
  }

  /** Reads an info object. */
  public static Info fromJson(JsonObject o) {
    return new Info(
        Wire.objects(o, "pools").stream().map(PoolStatus::fromJson).toList(),
        (int) Wire.number(o, "claimed"),
        (int) Wire.number(o, "hibernated"),
        (int) Wire.number(o, "archived"),
        Wire.bool(o, "draining"),
        Wire.bool(o, "at_capacity"),
        Wire.string(o, "at_capacity_reason"),
        Wire.strings(o, "peers"));
  }
}
