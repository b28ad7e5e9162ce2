package dev.runkora.spi.autoscaler;

/**
 * How many placeholder pods to run, and at which priority. Built by plugins through {@link #of}.
 *
 * @param replicas placeholder pods, one per node to hold open
 * @param priority their priority class value, below zero
 */
public record PlaceholderPlan(int replicas, int priority) {

  /** Returns a plan. */
  public static PlaceholderPlan of(int replicas, int priority) {
    return new PlaceholderPlan(replicas, priority);
  }
}
