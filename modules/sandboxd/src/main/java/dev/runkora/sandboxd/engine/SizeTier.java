package dev.runkora.sandboxd.engine;

import dev.runkora.spi.runtime.ResourceLimits;
import dev.runkora.spi.runtime.RuntimeCapability;
import java.util.Locale;
import java.util.Set;

/** The fixed size tiers of the sandboxd API (reference §5.2). */
public enum SizeTier {
  SMALL("small", 1, 512L << 20),
  MEDIUM("medium", 2, 1L << 30),
  LARGE("large", 4, 4L << 30),
  XLARGE("xlarge", 4, 8L << 30),
  XXLARGE("2xlarge", 8, 16L << 30);

  /** Processes per sandbox where the runtime can limit them: stops a fork bomb, not a build. */
  static final long PIDS = 4096;

  private final String apiName;
  private final int cpus;
  private final long memoryBytes;

  SizeTier(String apiName, int cpus, long memoryBytes) {
    this.apiName = apiName;
    this.cpus = cpus;
    this.memoryBytes = memoryBytes;
  }

  /** Returns the API name, such as {@code 2xlarge}. */
  public String apiName() {
    return apiName;
  }

  /** Returns the tier's CPUs. */
  public int cpus() {
    return cpus;
  }

  /** Returns the tier's memory. */
  public long memoryBytes() {
    return memoryBytes;
  }

  /** Returns the tier's limits, keeping only those the runtime enforces. */
  public ResourceLimits limits(Set<RuntimeCapability> capabilities) {
    var limits = ResourceLimits.none();
    if (capabilities.contains(RuntimeCapability.CPU_LIMIT)) {
      limits = limits.withCpus(cpus);
    }
    if (capabilities.contains(RuntimeCapability.MEMORY_LIMIT)) {
      limits = limits.withMemoryBytes(memoryBytes);
    }
    if (capabilities.contains(RuntimeCapability.PIDS_LIMIT)) {
      limits = limits.withPids(PIDS);
    }
    return limits;
  }

  /** Returns the tier of an API name; 400 for anything else (free-form sizes are rejected). */
  public static SizeTier parse(String name) {
    for (SizeTier tier : values()) {
      if (tier.apiName.equals(name)) {
        return tier;
      }
    }
    throw ApiException.badRequest(
        "unknown size \""
            + name.toLowerCase(Locale.ROOT)
            + "\" (small, medium, large, xlarge, 2xlarge)");
  }
}
