package dev.runkora.testing.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.apis.SchedulingV1Api;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PriorityClass;
import io.kubernetes.client.openapi.models.V1Toleration;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Capacity placeholders at priority -10 fill a node; a priority-0 pod preempts one of them and is
 * bound there (the mechanism capacity warming relies on).
 */
@KubeClusterTest
class PreemptionE2E {
  private static final String NODE_LABEL = "kora.runkora.dev/e2e-node";

  @Test
  void priorityZeroPodPreemptsOnePlaceholderOnAFullNode(ApiClient client, TestNamespace namespace)
      throws Exception {
    CoreV1Api core = new CoreV1Api(client);
    SchedulingV1Api scheduling = new SchedulingV1Api(client);
    String priorityClass = TestPods.unique("kora-e2e-placeholder");
    scheduling
        .createPriorityClass(
            new V1PriorityClass()
                .metadata(new V1ObjectMeta().name(priorityClass))
                .value(-10)
                .globalDefault(false)
                .description("capacity placeholder (kora e2e)"))
        .execute();
    String nodeName = TestPods.unique("fake-full");
    // Tainted for this test alone and selected by its pods: no pod of another test (a pending
    // pod of a namespace still being deleted, say) can take a share of the node.
    try (FakeNode node =
        FakeNode.builder(nodeName)
            .cpu("2")
            .memory("8Gi")
            .label(NODE_LABEL, nodeName)
            .taint(NODE_LABEL, nodeName, "NoSchedule")
            .start(client)) {
      List<String> placeholders =
          List.of("placeholder-0", "placeholder-1", "placeholder-2", "placeholder-3");
      for (String name : placeholders) {
        V1Pod pod = TestPods.pod(name, "500m", "64Mi");
        pod.getMetadata().labels(Map.of("role", "placeholder"));
        pod.getSpec().priorityClassName(priorityClass);
        onlyOn(pod, nodeName);
        TestPods.create(core, namespace, pod);
      }
      await("placeholders running on the node")
          .atMost(Duration.ofSeconds(60))
          .until(() -> runningPlaceholders(core, namespace, nodeName), n -> n == 4);
      assertThat(
              TestPods.read(core, namespace, "placeholder-0").orElseThrow().getSpec().getPriority())
          .isEqualTo(-10);

      V1Pod sandbox = TestPods.pod("sandbox", "500m", "64Mi");
      onlyOn(sandbox, nodeName);
      TestPods.create(core, namespace, sandbox);

      await("priority-0 pod bound after preemption")
          .atMost(Duration.ofSeconds(90))
          .until(() -> TestPods.nodeOf(core, namespace, "sandbox"), Optional::isPresent);
      V1Pod bound = TestPods.read(core, namespace, "sandbox").orElseThrow();
      assertThat(bound.getSpec().getNodeName()).isEqualTo(node.name());
      assertThat(bound.getSpec().getPriority()).isZero();

      List<V1Pod> remaining =
          core.listNamespacedPod(namespace.name())
              .labelSelector("role=placeholder")
              .execute()
              .getItems();
      assertThat(remaining)
          .as("exactly one placeholder was preempted")
          .hasSize(3)
          .allSatisfy(p -> assertThat(p.getMetadata().getDeletionTimestamp()).isNull());
    } finally {
      scheduling.deletePriorityClass(priorityClass).execute();
    }
  }

  private static void onlyOn(V1Pod pod, String nodeName) {
    pod.getSpec()
        .nodeSelector(Map.of(NODE_LABEL, nodeName))
        .tolerations(
            List.of(
                new V1Toleration()
                    .key(NODE_LABEL)
                    .operator("Equal")
                    .value(nodeName)
                    .effect("NoSchedule")));
  }

  private static long runningPlaceholders(CoreV1Api core, TestNamespace namespace, String node)
      throws Exception {
    return core
        .listNamespacedPod(namespace.name())
        .labelSelector("role=placeholder")
        .execute()
        .getItems()
        .stream()
        .filter(p -> node.equals(p.getSpec().getNodeName()))
        .filter(p -> "Running".equals(p.getStatus().getPhase()))
        .count();
  }
}
