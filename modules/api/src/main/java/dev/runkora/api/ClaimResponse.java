package dev.runkora.api;

import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Answer of {@code POST /v1/claim}: either a claimed sandbox ({@link #id()} not empty) or, on a
 * mesh, a redirect to peers ({@link #redirect()} not empty).
 *
 * @param id sandbox id, {@code sb_} and 16 hex characters; empty for a redirect
 * @param token the sandbox token; a secret, never logged
 * @param deadline lease end; {@code Instant.EPOCH} for a redirect
 * @param ownerAddr the node's advertise address; empty when the node did not send one
 * @param redirect peer addresses to retry at with {@code no_redirect}; empty for a claim
 */
public record ClaimResponse(
    String id, String token, Instant deadline, String ownerAddr, List<String> redirect) {

  /** Normalizes absent values. */
  public ClaimResponse {
    id = Wire.nonNull(id);
    token = Wire.nonNull(token);
    deadline = deadline == null ? Instant.EPOCH : deadline;
    ownerAddr = Wire.nonNull(ownerAddr);
    redirect = redirect == null ? List.of() : List.copyOf(redirect);
  }

  /** Whether the node answered with a redirect instead of a sandbox. */
  public boolean isRedirect() {
    return id.isEmpty() && !redirect.isEmpty();
  }

  /** The response body. */
  public JsonObject toJson() {
    JsonObjectBuilder b = Wire.object();
    if (isRedirect()) {
      return b.add("redirect", Wire.stringArray(redirect)).build();
    }
    b.add("id", id).add("token", token).add("deadline", deadline.toString());
    if (!ownerAddr.isEmpty()) {
      b.add("owner_addr", ownerAddr);
    }
    return b.build();
  }

  /** Reads a claim answer. */
  public static ClaimResponse fromJson(JsonObject o) {
    List<String> redirect = Wire.strings(o, "redirect");
    String id = Wire.string(o, "id");
    if (id.isEmpty() && redirect.isEmpty()) {
      throw new IllegalArgumentException("claim answer has neither id nor redirect");
    }
    Optional<Instant> deadline = Wire.instant(o, "deadline");
    return new ClaimResponse(
        id,
        Wire.string(o, "token"),
        deadline.orElse(Instant.EPOCH),
        Wire.string(o, "owner_addr"),
        redirect);
  }

  /** Leaves the token out, so that a response can be logged. */
  @Override
  public String toString() {
    return isRedirect()
        ? "ClaimResponse[redirect=" + redirect + "]"
        : "ClaimResponse[id=" + id + ", deadline=" + deadline + ", ownerAddr=" + ownerAddr + "]";
  }
}
