/**
 * A real Kubernetes cluster for {@code *E2E} tests: the {@link
 * dev.runkora.testing.cluster.KubeClusterTest} extension (client, per-test namespace, the local
 * control plane started once per run) and {@link dev.runkora.testing.cluster.FakeNode} (a node
 * registered through the API that heartbeats, runs its pods on paper and completes their deletion).
 */
package dev.runkora.testing.cluster;
