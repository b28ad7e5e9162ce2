package dev.runkora.api;

import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import java.time.Instant;
import java.util.Optional;

/**
 * One live claim, as {@code GET /v1/sandboxes} and {@code GET /v1/sandboxes/{id}} report it.
 *
 * @param id sandbox id
 * @param key the sandbox's pool key
 * @param deadline lease end
 * @param claimedAt first grant; empty for claims recorded before the field existed
 * @param hibernated whether the sandbox is hibernated
 * @param archived whether it is archived (advanced)
 * @param fromCheckpoint checkpoint it was branched from; empty for none
 * @param claimRef caller reference; empty for none
 * @param token the sandbox token, only in a root {@code GET /v1/sandboxes/{id}}; otherwise empty
 */
public record SandboxRow(
    String id,
    PoolKey key,
    Instant deadline,
    Optional<Instant> claimedAt,
    boolean hibernated,
    boolean archived,
    String fromCheckpoint,
    String claimRef,
    String token) {

  /** Normalizes absent values. */
  public SandboxRow {
    id = Wire.nonNull(id);
    claimedAt = claimedAt == null ? Optional.empty() : claimedAt;
    fromCheckpoint = Wire.nonNull(fromCheckpoint);
    claimRef = Wire.nonNull(claimRef);
    token = Wire.nonNull(token);
  }

  /** The row object; empty optional fields are left out, as the contract says. */
  public JsonObject toJson() {
    JsonObjectBuilder b =
        Wire.object()
            .add("id", id)
            .add("key", key.toJson())
            .add("deadline", deadline.toString())
            .add("hibernated", hibernated);
    claimedAt.ifPresent(t -> b.add("claimed_at", t.toString()));
    if (archived) {
      b.add("archived", true);
    }
    if (!fromCheckpoint.isEmpty()) {
      b.add("from_checkpoint", fromCheckpoint);
    }
    if (!claimRef.isEmpty()) {
      b.add("claim_ref", claimRef);
    }
    if (!token.isEmpty()) {
      b.add("token", token);
    }
    return b.build();
  }

  /** Reads a row. */
  public static SandboxRow fromJson(JsonObject o) {
    return new SandboxRow(
        Wire.requiredString(o, "id"),
        PoolKey.fromJson(Wire.objectField(o, "key")),
        Wire.instant(o, "deadline").orElse(Instant.EPOCH),
        Wire.instant(o, "claimed_at"),
        Wire.bool(o, "hibernated"),
        Wire.bool(o, "archived"),
        Wire.string(o, "from_checkpoint"),
        Wire.string(o, "claim_ref"),
        Wire.string(o, "token"));
  }

  /** Leaves the token out. */
  @Override
  public String toString() {
    return "SandboxRow[id="
        + id
        + ", key="
        + key
        + ", deadline="
        + deadline
        + ", claimRef="
        + claimRef
        + "]";
  }
}
