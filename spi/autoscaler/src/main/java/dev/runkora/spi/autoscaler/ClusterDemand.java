package dev.runkora.spi.autoscaler;

/**
 * What the operator knows of sandbox demand in a cluster when it asks for placeholders. The host
 * builds it.
 *
 * @param configuredReplicas {@code agents.sandboxWarming.replicas}: nodes to hold open
 * @param pendingSandboxes sandbox pods waiting for a node now
 * @param runningSandboxes sandbox pods running now
 * @param priority {@code agents.sandboxWarming.priority}; below zero
 */
public record ClusterDemand(
    int configuredReplicas, int pendingSandboxes, int runningSandboxes, int priority) {

  /** Checks the values. */
  public ClusterDemand {
    if (configuredReplicas < 0 || pendingSandboxes < 0 || runningSandboxes < 0) {
      throw new IllegalArgumentException("counts are not negative");
    }
    if (priority >= 0) {
      throw new IllegalArgumentException(
          "placeholder priority must be below 0 so sandboxes can replace placeholders, not "
              + priority);
    }
  }
}
