/**
 * Test support shared by kora's modules.
 *
 * <p>{@link dev.runkora.testing.cluster.KubeClusterTest} gives {@code *E2E} tests a client-java
 * {@code ApiClient} for a real Kubernetes cluster: the one named by {@code KUBECONFIG}, or else the
 * local control plane of {@code conformance/cluster} (etcd, kube-apiserver, kube-controller-manager
 * and kube-scheduler on loopback), started once per test run. {@link
 * dev.runkora.testing.cluster.FakeNode} registers nodes through the API so that scheduling can be
 * tested without a kubelet.
 */
module dev.runkora.testing {
  requires transitive io.kubernetes.client.java;
  requires transitive io.kubernetes.client.java.api;
  requires transitive org.junit.jupiter.api;
  // Awaitility has no Automatic-Module-Name; the name is derived from its jar.
  requires awaitility;

  exports dev.runkora.testing.cluster;
}
