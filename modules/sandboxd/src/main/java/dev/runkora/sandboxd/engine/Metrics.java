package dev.runkora.sandboxd.engine;

import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.DoubleAdder;
import java.util.concurrent.atomic.LongAdder;

/** The daemon's counters, and their Prometheus text with the reference's series names. */
public final class Metrics {

  /** How a claim was served. */
  public enum Tier {
    WARM,
    CLONE,
    COLD
  }

  private final Map<Tier, LongAdder> claims =
      Map.of(Tier.WARM, new LongAdder(), Tier.CLONE, new LongAdder(), Tier.COLD, new LongAdder());
  private final DoubleAdder claimSeconds = new DoubleAdder();
  private final LongAdder releases = new LongAdder();
  private final LongAdder reaps = new LongAdder();

  /** Counts a claim served by a tier and the time it took. */
  public void claimed(Tier tier, long nanos) {
    claims.get(tier).increment();
    claimSeconds.add(nanos / 1e9);
  }

  /** Counts a release. */
  public void released() {
    releases.increment();
  }

  /** Counts a reap. */
  public void reaped() {
    reaps.increment();
  }

  /** Returns claims served by a tier so far. */
  public long claims(Tier tier) {
    return claims.get(tier).sum();
  }

  /** The gauges, read at scrape time. */
  public record Gauges(
      int claimed,
      boolean draining,
      Map<String, Integer> tenantClaims,
      List<PoolManager.PoolView> pools) {}

  /** Renders the Prometheus text format 0.0.4. */
  public String render(Gauges gauges) {
    var out = new StringBuilder(2048);
    gauge(out, "sandboxd_claimed", "Live claims (includes hibernated and archived).");
    out.append("sandboxd_claimed ").append(gauges.claimed()).append('\n');
    gauge(out, "sandboxd_hibernated", "Claims currently hibernated.");
    out.append("sandboxd_hibernated 0\n");
    gauge(out, "sandboxd_archived", "Claims archived to the checkpoint store.");
    out.append("sandboxd_archived 0\n");
    gauge(out, "sandboxd_draining", "1 while the node is cordoned.");
    out.append("sandboxd_draining ").append(gauges.draining() ? 1 : 0).append('\n');
    if (!gauges.tenantClaims().isEmpty()) {
      gauge(out, "sandboxd_tenant_claims", "Live claims per configured tenant.");
      gauges
          .tenantClaims()
          .forEach(
              (tenant, n) ->
                  out.append("sandboxd_tenant_claims{tenant=\"")
                      .append(escape(tenant))
                      .append("\"} ")
                      .append(n)
                      .append('\n'));
    }
    gauge(out, "sandboxd_pool_warm", "Claim-ready instances per pool.");
    for (var pool : gauges.pools()) {
      out.append("sandboxd_pool_warm").append(labels(pool.key())).append(' ').append(pool.warm());
      out.append('\n');
    }
    gauge(out, "sandboxd_pool_target", "Current warm watermark per pool.");
    for (var pool : gauges.pools()) {
      out.append("sandboxd_pool_target").append(labels(pool.key())).append(' ');
      out.append(pool.target()).append('\n');
    }
    counter(out, "sandboxd_claims_total", "Claims served by provisioning tier.");
    for (Tier tier : Tier.values()) {
      out.append("sandboxd_claims_total{tier=\"")
          .append(tier.name().toLowerCase(java.util.Locale.ROOT))
          .append("\"} ")
          .append(claims.get(tier).sum())
          .append('\n');
    }
    counter(out, "sandboxd_claim_seconds_total", "Total seconds spent serving claims.");
    out.append("sandboxd_claim_seconds_total ").append(claimSeconds.sum()).append('\n');
    counter(out, "sandboxd_releases_total", "Releases.");
    out.append("sandboxd_releases_total ").append(releases.sum()).append('\n');
    counter(out, "sandboxd_reaps_total", "Sandboxes destroyed at the end of their lease.");
    out.append("sandboxd_reaps_total ").append(reaps.sum()).append('\n');
    return out.toString();
  }

  private static void gauge(StringBuilder out, String name, String help) {
    out.append("# HELP ").append(name).append(' ').append(help).append('\n');
    out.append("# TYPE ").append(name).append(" gauge\n");
  }

  private static void counter(StringBuilder out, String name, String help) {
    out.append("# HELP ").append(name).append(' ').append(help).append('\n');
    out.append("# TYPE ").append(name).append(" counter\n");
  }

  private static String labels(PoolKey key) {
    return "{template=\""
        + escape(key.template())
        + "\",net=\""
        + key.net()
        + "\",size=\""
        + key.size()
        + "\"}";
  }

  private static String escape(String value) {
    return value.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
  }
}
