package dev.runkora.sandboxd.engine;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One live claim: a sandbox handed to a caller, with its lease and attribution. Immutable; a renew
 * replaces it.
 *
 * @param id the sandbox id ({@code sb_...})
 * @param vmName the runtime sandbox's name ({@code sbx-...})
 * @param key the pool key it was claimed for
 * @param token the sandbox token (secret)
 * @param deadline when the lease ends
 * @param leaseSeconds the granted lease length
 * @param tenant the tenant that claimed it, or empty for root
 * @param claimRef the caller's reference, or empty
 * @param claimedAt the first grant
 * @param env variables added to every exec (kora extension)
 * @param mounts mounts granted at claim time (kora extension)
 */
public record Claim(
    String id,
    String vmName,
    PoolKey key,
    String token,
    Instant deadline,
    long leaseSeconds,
    String tenant,
    String claimRef,
    Instant claimedAt,
    Map<String, String> env,
    List<ClaimMount> mounts) {

  /** Checks for nulls and copies the collections. */
  public Claim {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(vmName, "vmName");
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(token, "token");
    Objects.requireNonNull(deadline, "deadline");
    Objects.requireNonNull(tenant, "tenant");
    Objects.requireNonNull(claimRef, "claimRef");
    Objects.requireNonNull(claimedAt, "claimedAt");
    env = Map.copyOf(env);
    mounts = List.copyOf(mounts);
  }

  /** Returns a copy with a new lease. */
  public Claim renewed(Instant newDeadline, long newLeaseSeconds) {
    return new Claim(
        id,
        vmName,
        key,
        token,
        newDeadline,
        newLeaseSeconds,
        tenant,
        claimRef,
        claimedAt,
        env,
        mounts);
  }
}
