package dev.runkora.sandboxd;

import java.util.List;

/**
 * A snapshot of a running daemon, for progress displays.
 *
 * @param pools every configured pool with its warm and target counts
 * @param claimed live claims
 * @param draining whether the node is cordoned
 */
public record SandboxdInfo(List<PoolStatus> pools, int claimed, boolean draining) {

  /** Copies the list. */
  public SandboxdInfo {
    pools = List.copyOf(pools);
  }

  /** Returns whether every pool holds at least its target of warm sandboxes. */
  public boolean warm() {
    return pools.stream().allMatch(p -> p.warm() >= p.target());
  }

  /**
   * One pool.
   *
   * @param template the template
   * @param net {@code none} or {@code egress}
   * @param size the size tier
   * @param warm claim-ready sandboxes now
   * @param target the current warm target
   * @param refilling sandboxes being made now
   * @param lastError the last provisioning failure of the pool, or empty
   */
  public record PoolStatus(
      String template,
      String net,
      String size,
      int warm,
      int target,
      int refilling,
      String lastError) {}
}
