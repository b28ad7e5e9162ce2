package dev.runkora.testing.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.apis.CoordinationV1Api;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1Lease;
import io.kubernetes.client.openapi.models.V1Node;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1Taint;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The fake node stands in for a kubelet: it heartbeats, runs its pods and completes deletion. */
@KubeClusterTest
class FakeNodeE2E {

  @Test
  void registeredNodeIsReadyUntaintedAndRenewsItsLease(ApiClient client) throws Exception {
    CoreV1Api core = new CoreV1Api(client);
    CoordinationV1Api coordination = new CoordinationV1Api(client);
    try (FakeNode node =
        FakeNode.builder(TestPods.unique("fake"))
            .cpu("2")
            .memory("4Gi")
            .label("kora.runkora.dev/e2e", "fake-node")
            .start(client)) {
      V1Node registered = core.readNode(node.name()).execute();
      assertThat(registered.getMetadata().getLabels())
          .containsEntry("kora.runkora.dev/e2e", "fake-node")
          .containsEntry("type", "fake");
      assertThat(registered.getStatus().getAllocatable().get("pods").getNumber().intValue())
          .isEqualTo(110);
      List<V1Taint> taints = registered.getSpec().getTaints();
      assertThat(taints == null ? List.<V1Taint>of() : taints)
          .noneMatch(t -> t.getKey().startsWith("node.kubernetes.io/"));

      V1Lease lease = coordination.readNamespacedLease(node.name(), "kube-node-lease").execute();
      assertThat(lease.getSpec().getHolderIdentity()).isEqualTo(node.name());
      OffsetDateTime first = lease.getSpec().getRenewTime();
      await("lease renewed")
          .atMost(Duration.ofSeconds(25))
          .pollInterval(Duration.ofSeconds(1))
          .until(
              () ->
                  coordination
                      .readNamespacedLease(node.name(), "kube-node-lease")
                      .execute()
                      .getSpec()
                      .getRenewTime()
                      .isAfter(first));
    }
  }

  @Test
  void podBoundToTheNodeRunsAndItsDeletionCompletes(ApiClient client, TestNamespace namespace)
      throws Exception {
    CoreV1Api core = new CoreV1Api(client);
    try (FakeNode node = FakeNode.builder(TestPods.unique("fake")).start(client)) {
      V1Pod pod = TestPods.pod("bound", "100m", "64Mi");
      pod.getSpec().nodeName(node.name());
      TestPods.create(core, namespace, pod);

      await("pod running")
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  TestPods.read(core, namespace, "bound")
                      .filter(p -> "Running".equals(p.getStatus().getPhase()))
                      .isPresent());
      V1Pod running = TestPods.read(core, namespace, "bound").orElseThrow();
      assertThat(running.getStatus().getPodIP()).startsWith("10.244.");
      assertThat(TestPods.condition(running, "Ready"))
          .hasValueSatisfying(c -> assertThat(c.getStatus()).isEqualTo("True"));
      assertThat(running.getStatus().getContainerStatuses())
          .singleElement()
          .satisfies(c -> assertThat(c.getState().getRunning()).isNotNull());

      // A graceful delete (30 s by default) would wait for a kubelet; the fake node completes it.
      core.deleteNamespacedPod("bound", namespace.name()).execute();
      await("pod gone")
          .atMost(Duration.ofSeconds(15))
          .until(() -> TestPods.read(core, namespace, "bound").isEmpty());
    }
  }

  @Test
  void closingTheNodeDeletesItAndItsPods(ApiClient client, TestNamespace namespace)
      throws Exception {
    CoreV1Api core = new CoreV1Api(client);
    String name;
    try (FakeNode node = FakeNode.builder(TestPods.unique("fake")).start(client)) {
      name = node.name();
      V1Pod pod = TestPods.pod("left", "100m", "64Mi");
      pod.getSpec().nodeName(name);
      TestPods.create(core, namespace, pod);
    }
    assertThat(TestPods.read(core, namespace, "left")).isEmpty();
    assertThat(core.listNode().fieldSelector("metadata.name=" + name).execute().getItems())
        .isEmpty();
  }
}
