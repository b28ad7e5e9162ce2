package dev.runkora.spi.runtime;

/**
 * The limits of one sandbox. Zero means "no limit" for every field. A runtime that is asked for a
 * non-zero limit it does not declare as a capability fails {@link SandboxRuntime#create} with
 * {@link dev.runkora.spi.core.ErrorKind#UNSUPPORTED}.
 *
 * @param cpus CPU time as a number of CPUs (1.5 = one and a half CPUs of quota)
 * @param memoryBytes resident memory, after which the kernel kills a process of the sandbox
 * @param pids how many processes and threads may exist at once
 * @param diskBytes how much the sandbox may write to its own storage
 */
public record ResourceLimits(double cpus, long memoryBytes, long pids, long diskBytes) {

  /** Rejects negative limits. */
  public ResourceLimits {
    if (cpus < 0 || memoryBytes < 0 || pids < 0 || diskBytes < 0) {
      throw new IllegalArgumentException("limits are zero (none) or positive");
    }
  }

  /** Returns limits that limit nothing. */
  public static ResourceLimits none() {
    return new ResourceLimits(0, 0, 0, 0);
  }

  /** Returns a copy with a CPU limit. */
  public ResourceLimits withCpus(double value) {
    return new ResourceLimits(value, memoryBytes, pids, diskBytes);
  }

  /** Returns a copy with a memory limit. */
  public ResourceLimits withMemoryBytes(long value) {
    return new ResourceLimits(cpus, value, pids, diskBytes);
  }

  /** Returns a copy with a process limit. */
  public ResourceLimits withPids(long value) {
    return new ResourceLimits(cpus, memoryBytes, value, diskBytes);
  }

  /** Returns a copy with a disk limit. */
  public ResourceLimits withDiskBytes(long value) {
    return new ResourceLimits(cpus, memoryBytes, pids, value);
  }
}
