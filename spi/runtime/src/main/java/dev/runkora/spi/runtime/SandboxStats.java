package dev.runkora.spi.runtime;

import java.time.Instant;

/**
 * Resource use of one sandbox, measured by {@link SandboxRuntime#stats}. Built by plugins through
 * {@link #of} or {@link #unmeasured}.
 *
 * @param memoryBytes resident memory of the sandbox's processes
 * @param cpuNanos CPU time used by them since creation
 * @param processes how many processes run in the sandbox
 * @param measured false when nothing could be read, so that zero is never taken for idle
 * @param measuredAt when the figures were read
 */
public record SandboxStats(
    long memoryBytes, long cpuNanos, int processes, boolean measured, Instant measuredAt) {

  /** Returns measured figures. */
  public static SandboxStats of(long memoryBytes, long cpuNanos, int processes, Instant at) {
    return new SandboxStats(memoryBytes, cpuNanos, processes, true, at);
  }

  /** Returns figures that say nothing could be read. */
  public static SandboxStats unmeasured(Instant at) {
    return new SandboxStats(0, 0, 0, false, at);
  }
}
