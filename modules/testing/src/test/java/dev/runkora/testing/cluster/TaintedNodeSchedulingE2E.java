package dev.runkora.testing.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1Toleration;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Two fake nodes, one of them labelled and tainted {@code workload-tier=kora-sandbox:NoSchedule}:
 * only pods that tolerate the taint and select the label land on it.
 */
@KubeClusterTest
class TaintedNodeSchedulingE2E {
  private static final String TIER = "workload-tier";
  private static final String SANDBOX = "kora-sandbox";

  private static FakeNode sandboxNode;
  private static FakeNode plainNode;

  @BeforeAll
  static void startNodes(ApiClient client) throws Exception {
    sandboxNode =
        FakeNode.builder(TestPods.unique("fake-sandbox"))
            .label(TIER, SANDBOX)
            .taint(TIER, SANDBOX, "NoSchedule")
            .start(client);
    plainNode = FakeNode.builder(TestPods.unique("fake-plain")).start(client);
  }

  @AfterAll
  static void stopNodes() {
    if (plainNode != null) {
      plainNode.close();
    }
    if (sandboxNode != null) {
      sandboxNode.close();
    }
  }

  @Test
  void podWithTheTolerationAndNodeSelectorIsBoundToTheTaintedNode(
      ApiClient client, TestNamespace namespace) throws Exception {
    CoreV1Api core = new CoreV1Api(client);
    V1Pod pod = TestPods.pod("sandbox", "500m", "256Mi");
    pod.getSpec()
        .nodeSelector(Map.of(TIER, SANDBOX))
        .tolerations(
            List.of(
                new V1Toleration()
                    .key(TIER)
                    .operator("Equal")
                    .value(SANDBOX)
                    .effect("NoSchedule")));
    TestPods.create(core, namespace, pod);

    await("sandbox pod bound")
        .atMost(Duration.ofSeconds(60))
        .until(() -> TestPods.nodeOf(core, namespace, "sandbox"), Optional::isPresent);
    assertThat(TestPods.nodeOf(core, namespace, "sandbox")).contains(sandboxNode.name());
  }

  @Test
  void podWithoutTheTolerationIsNeverBoundToTheTaintedNode(
      ApiClient client, TestNamespace namespace) throws Exception {
    CoreV1Api core = new CoreV1Api(client);
    TestPods.create(core, namespace, TestPods.pod("plain", "500m", "256Mi"));
    V1Pod selectorOnly = TestPods.pod("selector-only", "500m", "256Mi");
    selectorOnly.getSpec().nodeSelector(Map.of(TIER, SANDBOX));
    TestPods.create(core, namespace, selectorOnly);

    // Without selector or toleration: bound, and not to the tainted node (on the local plane the
    // fake nodes are the only nodes, so it is the plain one).
    await("plain pod bound")
        .atMost(Duration.ofSeconds(60))
        .until(() -> TestPods.nodeOf(core, namespace, "plain"), Optional::isPresent);
    assertThat(TestPods.nodeOf(core, namespace, "plain").orElseThrow())
        .isNotEqualTo(sandboxNode.name());

    // Selecting the tainted node without tolerating its taint: the scheduler refuses it.
    await("selector-only pod unschedulable")
        .atMost(Duration.ofSeconds(60))
        .until(
            () -> TestPods.failedScheduling(core, namespace, "selector-only"),
            messages -> !messages.isEmpty());
    assertThat(TestPods.failedScheduling(core, namespace, "selector-only"))
        .anySatisfy(m -> assertThat(m).contains("untolerated taint"));
    V1Pod pending = TestPods.read(core, namespace, "selector-only").orElseThrow();
    assertThat(pending.getSpec().getNodeName()).isNull();
    assertThat(pending.getStatus().getPhase()).isEqualTo("Pending");
    assertThat(TestPods.condition(pending, "PodScheduled"))
        .hasValueSatisfying(c -> assertThat(c.getReason()).isEqualTo("Unschedulable"));
  }
}
