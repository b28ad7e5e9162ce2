package dev.runkora.sandboxd.engine;

import java.util.HashMap;
import java.util.Map;

/**
 * Decides whether a claim may start: the drain cordon, the node's {@code max_claims} and each
 * tenant's cap. A slot is taken before provisioning starts and given back when the claim fails, is
 * released or is reaped, so concurrent claims can never overshoot a cap.
 */
public final class Admission {

  private final int nodeCap;
  private final Map<String, Integer> tenantCaps;
  private final Map<String, Integer> perTenant = new HashMap<>();
  private int inUse;
  private boolean draining;

  /** Creates the admission with the node cap (0 = none) and tenant caps (0 = none). */
  public Admission(int nodeCap, Map<String, Integer> tenantCaps) {
    this.nodeCap = nodeCap;
    this.tenantCaps = Map.copyOf(tenantCaps);
  }

  /**
   * Takes a slot for a claim by a tenant ("" for root).
   *
   * @throws ApiException 429 when draining or at a cap
   */
  public synchronized void admit(String tenant) {
    if (draining) {
      throw ApiException.tooMany("node draining");
    }
    if (nodeCap > 0 && inUse >= nodeCap) {
      throw ApiException.tooMany("node at max_claims");
    }
    if (!tenant.isEmpty()) {
      int cap = tenantCaps.getOrDefault(tenant, 0);
      int used = perTenant.getOrDefault(tenant, 0);
      if (cap > 0 && used >= cap) {
        throw ApiException.tooMany("tenant at max_claims");
      }
      perTenant.put(tenant, used + 1);
    }
    inUse++;
  }

  /** Counts a claim that exists already (adopted at start-up). */
  public synchronized void adopt(String tenant) {
    inUse++;
    if (!tenant.isEmpty()) {
      perTenant.merge(tenant, 1, Integer::sum);
    }
  }

  /** Gives a slot back. */
  public synchronized void leave(String tenant) {
    inUse = Math.max(0, inUse - 1);
    if (!tenant.isEmpty()) {
      perTenant.computeIfPresent(tenant, (t, n) -> n <= 1 ? null : n - 1);
    }
  }

  /** Sets the drain cordon. */
  public synchronized void draining(boolean value) {
    draining = value;
  }

  /** Returns whether the node is cordoned. */
  public synchronized boolean draining() {
    return draining;
  }

  /** Returns live claims per tenant. */
  public synchronized Map<String, Integer> perTenant() {
    return Map.copyOf(perTenant);
  }
}
