package dev.runkora.spi.runtime;

/** What a {@link SandboxRuntime} can do. The host reads these before it relies on a feature. */
public enum RuntimeCapability {
  /** Processes of a sandbox cannot see or signal host processes or other sandboxes. */
  PROCESS_ISOLATION,
  /** The sandbox sees only its root filesystem and its mounts, not the host's. */
  FILESYSTEM_ISOLATION,
  /** {@link ResourceLimits#cpus()} is enforced. */
  CPU_LIMIT,
  /** {@link ResourceLimits#memoryBytes()} is enforced: a process that exceeds it is killed. */
  MEMORY_LIMIT,
  /** {@link ResourceLimits#pids()} is enforced: forks beyond it fail. */
  PIDS_LIMIT,
  /** {@link ResourceLimits#diskBytes()} is enforced on the sandbox's writable storage. */
  DISK_LIMIT,
  /** {@link NetworkMode#NONE} gives a network namespace with only a loopback interface. */
  NETWORK_NONE,
  /** {@link NetworkMode#EGRESS} gives outbound network access. */
  NETWORK_EGRESS,
  /** {@link SandboxRuntime#mount} binds a host path into a sandbox that is already running. */
  LIVE_MOUNT,
  /** {@link SandboxRuntime#list} finds the sandboxes of an earlier process, to adopt them. */
  ADOPT,
  /** {@link SandboxRuntime#stats} measures memory and CPU use. */
  STATS
}
