package dev.runkora.api;

import jakarta.json.JsonObject;
import java.time.Instant;

/**
 * Answer of {@code GET /v1/sandboxes/{id}/stats}.
 *
 * <p>The CPU time is kora's addition: a reference sandboxd (or a runtime that measures nothing)
 * sends no {@code cpu_usage_ns}, which reads as {@code cpuUsageMeasured == false}.
 *
 * @param id sandbox id
 * @param cpuCount CPUs of the size tier
 * @param memTotalBytes memory of the size tier
 * @param memUsedBytes resident memory of the processes backing the sandbox
 * @param memUsedMeasured false when nothing could be read, so 0 is not mistaken for idle
 * @param hibernated whether the sandbox is hibernated
 * @param measuredAt when the figures were read
 * @param cpuUsageNs CPU time used by the sandbox's processes since it was made, in nanoseconds; 0
 *     when not measured
 * @param cpuUsageMeasured whether {@code cpuUsageNs} was read
 */
public record SandboxStats(
    String id,
    int cpuCount,
    long memTotalBytes,
    long memUsedBytes,
    boolean memUsedMeasured,
    boolean hibernated,
    Instant measuredAt,
    long cpuUsageNs,
    boolean cpuUsageMeasured) {

  /** Figures without a CPU time: the reference's fields only. */
  public SandboxStats(
      String id,
      int cpuCount,
      long memTotalBytes,
      long memUsedBytes,
      boolean memUsedMeasured,
      boolean hibernated,
      Instant measuredAt) {
    this(
        id,
        cpuCount,
        memTotalBytes,
        memUsedBytes,
        memUsedMeasured,
        hibernated,
        measuredAt,
        0,
        false);
  }

  /** The response body; {@code cpu_usage_ns} only when it was measured. */
  public JsonObject toJson() {
    var body =
        Wire.object()
            .add("id", id)
            .add("cpu_count", cpuCount)
            .add("mem_total_bytes", memTotalBytes)
            .add("mem_used_bytes", memUsedBytes)
            .add("mem_used_measured", memUsedMeasured)
            .add("hibernated", hibernated)
            .add("measured_at", measuredAt.toString())
            .add("cpu_usage_measured", cpuUsageMeasured);
    if (cpuUsageMeasured) {
      body.add("cpu_usage_ns", cpuUsageNs);
    }
    return body.build();
  }

  /** Reads a stats answer; one without {@code cpu_usage_ns} has no CPU time measured. */
  public static SandboxStats fromJson(JsonObject o) {
    boolean cpuMeasured = Wire.bool(o, "cpu_usage_measured") && o.containsKey("cpu_usage_ns");
    return new SandboxStats(
        Wire.requiredString(o, "id"),
        (int) Wire.number(o, "cpu_count"),
        Wire.number(o, "mem_total_bytes"),
        Wire.number(o, "mem_used_bytes"),
        Wire.bool(o, "mem_used_measured"),
        Wire.bool(o, "hibernated"),
        Wire.instant(o, "measured_at").orElse(Instant.EPOCH),
        cpuMeasured ? Wire.number(o, "cpu_usage_ns") : 0,
        cpuMeasured);
  }
}
