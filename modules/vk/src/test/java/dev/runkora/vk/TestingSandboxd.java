package dev.runkora.vk;

import dev.runkora.api.ApiException;
import dev.runkora.api.ClaimRequest;
import dev.runkora.api.ClaimResponse;
import dev.runkora.api.Info;
import dev.runkora.api.SandboxRow;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** A sandboxd in memory: claims, releases and listings, with switchable failures. */
final class TestingSandboxd implements SandboxdPort {
  final Map<String, SandboxRow> live = new LinkedHashMap<>();
  final Map<String, String> tokens = new LinkedHashMap<>();
  final List<ClaimRequest> claims = new ArrayList<>();
  final List<String> releases = new ArrayList<>();
  volatile boolean listFails;
  volatile int claimStatus;
  private int next;

  @Override
  public synchronized ClaimResponse claim(ClaimRequest request) {
    if (claimStatus != 0) {
      throw new ApiException(claimStatus, "no warm sandbox");
    }
    claims.add(request);
    String id = String.format("sb_%016x", ++next);
    Instant deadline =
        Instant.now().plusSeconds(request.ttlSeconds() == 0 ? 300 : request.ttlSeconds());
    live.put(
        id,
        new SandboxRow(
            id,
            request.key(),
            deadline,
            Optional.of(Instant.now()),
            false,
            false,
            "",
            request.claimRef(),
            ""));
    tokens.put(id, "token-" + id);
    return new ClaimResponse(id, "token-" + id, deadline, "10.0.0.5:7777", List.of());
  }

  @Override
  public synchronized void release(String id, String token) {
    if (!live.containsKey(id) || !tokens.get(id).equals(token)) {
      throw new ApiException(404, "no such sandbox");
    }
    live.remove(id);
    releases.add(id);
  }

  @Override
  public synchronized List<SandboxRow> list() {
    if (listFails) {
      throw new ApiException(
          "no answer from sandboxd: connection refused", new java.io.IOException());
    }
    return List.copyOf(live.values());
  }

  @Override
  public Info info() {
    return new Info(List.of(), live.size(), 0, 0, false, false, "", List.of());
  }

  @Override
  public synchronized Instant renew(String id, String token, long ttlSeconds) {
    SandboxRow row = live.get(id);
    if (row == null || !tokens.get(id).equals(token)) {
      throw new ApiException(404, "no such sandbox");
    }
    renewals.add(id);
    Instant deadline = renewClock.instant().plusSeconds(ttlSeconds == 0 ? 300 : ttlSeconds);
    live.put(
        id,
        new SandboxRow(
            id, row.key(), deadline, row.claimedAt(), false, false, "", row.claimRef(), ""));
    return deadline;
  }

  final List<String> renewals = new ArrayList<>();
  volatile java.time.Clock renewClock = java.time.Clock.systemUTC();

  /** Ends a lease: the sandbox disappears from the listing. */
  synchronized void reap(String id) {
    live.remove(id);
  }
}
