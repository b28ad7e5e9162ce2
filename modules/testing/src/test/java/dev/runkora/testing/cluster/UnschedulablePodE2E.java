package dev.runkora.testing.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1Pod;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A pod that fits no node stays Pending, and the scheduler says why. */
@KubeClusterTest
class UnschedulablePodE2E {

  @Test
  @SuppressWarnings("try") // the nodes only need to exist while the pod is scheduled
  void podLargerThanEveryNodeStaysPendingWithTheReasonInItsEvent(
      ApiClient client, TestNamespace namespace) throws Exception {
    CoreV1Api core = new CoreV1Api(client);
    try (FakeNode first =
            FakeNode.builder(TestPods.unique("fake")).cpu("4").memory("16Gi").start(client);
        FakeNode second =
            FakeNode.builder(TestPods.unique("fake")).cpu("4").memory("16Gi").start(client)) {
      TestPods.create(core, namespace, TestPods.pod("huge", "64", "512Gi"));

      await("FailedScheduling event")
          .atMost(Duration.ofSeconds(60))
          .until(
              () -> TestPods.failedScheduling(core, namespace, "huge"),
              messages -> !messages.isEmpty());
      List<String> messages = TestPods.failedScheduling(core, namespace, "huge");
      assertThat(messages)
          .anySatisfy(m -> assertThat(m).contains("Insufficient cpu", "Insufficient memory"));

      V1Pod pod = TestPods.read(core, namespace, "huge").orElseThrow();
      assertThat(pod.getSpec().getNodeName()).isNull();
      assertThat(pod.getStatus().getPhase()).isEqualTo("Pending");
      assertThat(TestPods.condition(pod, "PodScheduled"))
          .hasValueSatisfying(
              c -> {
                assertThat(c.getStatus()).isEqualTo("False");
                assertThat(c.getReason()).isEqualTo("Unschedulable");
                assertThat(c.getMessage()).contains("Insufficient cpu");
              });
    }
  }
}
