package dev.runkora.api;

import jakarta.json.JsonObject;
import java.time.Instant;

/**
 * Answer of {@code GET /v1/sandboxes/{id}/stats}.
 *
 * @param id sandbox id
 * @param cpuCount CPUs of the size tier
 * @param memTotalBytes memory of the size tier
 * @param memUsedBytes resident memory of the processes backing the sandbox
 * @param memUsedMeasured false when nothing could be read, so 0 is not mistaken for idle
 * @param hibernated whether the sandbox is hibernated
 * @param measuredAt when the figures were read
 */
public record SandboxStats(
    String id,
    int cpuCount,
    long memTotalBytes,
    long memUsedBytes,
    boolean memUsedMeasured,
    boolean hibernated,
    Instant measuredAt) {

  /** The response body. */
  public JsonObject toJson() {
    return Wire.object()
        .add("id", id)
        .add("cpu_count", cpuCount)
        .add("mem_total_bytes", memTotalBytes)
        .add("mem_used_bytes", memUsedBytes)
        .add("mem_used_measured", memUsedMeasured)
        .add("hibernated", hibernated)
        .add("measured_at", measuredAt.toString())
        .build();
  }

  /** Reads a stats answer. */
  public static SandboxStats fromJson(JsonObject o) {
    return new SandboxStats(
        Wire.requiredString(o, "id"),
        (int) Wire.number(o, "cpu_count"),
        Wire.number(o, "mem_total_bytes"),
        Wire.number(o, "mem_used_bytes"),
        Wire.bool(o, "mem_used_measured"),
        Wire.bool(o, "hibernated"),
        Wire.instant(o, "measured_at").orElse(Instant.EPOCH));
  }
}
