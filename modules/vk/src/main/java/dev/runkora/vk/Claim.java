package dev.runkora.vk;

import java.time.Instant;
import java.util.Optional;

/**
 * One claim held for a Pod key: the release credential and what the Pod's status is rendered from.
 *
 * @param id the sandboxd claim id
 * @param token the sandbox token, the release credential; never logged, never on a Pod
 * @param address sandboxd's {@code owner_addr} ({@code host:port}); empty when unknown
 * @param podUid the last Pod generation that held the claim (forensics only)
 * @param claimedAt the Pod's start time; never moves
 * @param deadline the cached lease end; empty when unknown
 * @param owner the controller owner recorded when a deleted Pod's claim was preserved; the owner
 *     re-check releases the claim once that owner is gone
 */
record Claim(
    String id,
    String token,
    String address,
    String podUid,
    Instant claimedAt,
    Optional<Instant> deadline,
    Optional<Owner> owner) {

  /** A Pod's controller owner reference. */
  record Owner(String apiVersion, String kind, String name, String uid) {}

  Claim(
      String id,
      String token,
      String address,
      String podUid,
      Instant claimedAt,
      Optional<Instant> deadline) {
    this(id, token, address, podUid, claimedAt, deadline, Optional.empty());
  }

  Claim withPodUid(String uid) {
    return new Claim(id, token, address, uid, claimedAt, deadline, Optional.empty());
  }

  Claim withDeadline(Optional<Instant> value) {
    return new Claim(id, token, address, podUid, claimedAt, value, owner);
  }

  Claim withOwner(Optional<Owner> value) {
    return new Claim(id, token, address, podUid, claimedAt, deadline, value);
  }

  /** The host part of {@link #address()}, which becomes the Pod IP; the whole value otherwise. */
  String host() {
    String a = address;
    if (a.startsWith("[")) {
      int end = a.indexOf(']');
      return end > 0 ? a.substring(1, end) : a;
    }
    int colon = a.lastIndexOf(':');
    if (colon > 0 && a.indexOf(':') == colon) {
      return a.substring(0, colon);
    }
    return a;
  }

  /** Whether the lease ended before {@code now}; an unknown deadline never ends. */
  boolean expiredAt(Instant now) {
    return deadline.isPresent() && !deadline.get().isAfter(now);
  }

  @Override
  public String toString() {
    return "Claim[id=" + id + ", address=" + address + ", podUid=" + podUid + "]";
  }
}
