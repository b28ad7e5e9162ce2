package dev.runkora.testing.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1Pod;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/** Each test gets a namespace of its own, ready for pods, and it goes when the test ends. */
@KubeClusterTest
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class KubeClusterExtensionE2E {
  private static TestNamespace classNamespace;
  private static String firstTestNamespace;

  @BeforeAll
  static void rememberClassNamespace(TestNamespace namespace) {
    classNamespace = namespace;
  }

  @Test
  @Order(1)
  void eachTestGetsItsOwnNamespaceReadyForPods(ApiClient client, TestNamespace namespace)
      throws Exception {
    firstTestNamespace = namespace.name();
    assertThat(namespace.name()).isNotEqualTo(classNamespace.name());
    CoreV1Api core = new CoreV1Api(client);
    assertThat(core.readNamespace(namespace.name()).execute().getStatus().getPhase())
        .isEqualTo("Active");
    // Accepted at once: the ServiceAccount admission plugin finds the default ServiceAccount.
    V1Pod pod = TestPods.pod("first", "10m", "8Mi");
    // Never scheduled, so that it cannot take a share of another test's fake node.
    pod.getSpec().nodeSelector(Map.of("kora.runkora.dev/e2e-node", "nowhere"));
    assertThat(TestPods.create(core, namespace, pod)).isNotNull();
  }

  @Test
  @Order(2)
  void theNamespaceOfAFinishedTestIsDeletedAndTheClassNamespaceStays(
      ApiClient client, TestNamespace namespace) throws Exception {
    assertThat(firstTestNamespace).isNotNull().isNotEqualTo(namespace.name());
    CoreV1Api core = new CoreV1Api(client);
    await("namespace of the first test terminating or gone")
        .atMost(Duration.ofSeconds(30))
        .until(() -> terminatingOrGone(core, firstTestNamespace));
    assertThat(core.readNamespace(classNamespace.name()).execute().getStatus().getPhase())
        .isEqualTo("Active");
  }

  private static boolean terminatingOrGone(CoreV1Api core, String name) throws ApiException {
    try {
      return "Terminating".equals(core.readNamespace(name).execute().getStatus().getPhase());
    } catch (ApiException e) {
      if (e.getCode() == 404) {
        return true;
      }
      throw e;
    }
  }
}
