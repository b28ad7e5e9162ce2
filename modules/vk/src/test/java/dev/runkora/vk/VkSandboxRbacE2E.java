package dev.runkora.vk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.runkora.api.SandboxdClient;
import dev.runkora.sandboxd.Sandboxd;
import dev.runkora.testing.cluster.KubeClusterTest;
import dev.runkora.testing.cluster.TestNamespace;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.apis.CustomObjectsApi;
import io.kubernetes.client.openapi.models.AuthenticationV1TokenRequest;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1TokenRequestSpec;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesApi;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import io.kubernetes.client.util.generic.dynamic.Dynamics;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;

/** vk-sandbox runs on the shipped RBAC manifest alone: the service account's token, not admin. */
@KubeClusterTest
class VkSandboxRbacE2E {

  @Test
  void theShippedRbacIsEnoughToServeAPodFromStartToRelease(ApiClient admin, TestNamespace ns)
      throws Exception {
    CoreV1Api core = new CoreV1Api(admin);
    try {
      core.createNamespace(new V1Namespace().metadata(new V1ObjectMeta().name("sandbox-system")))
          .execute();
    } catch (ApiException e) {
      if (e.getCode() != 409) {
        throw e;
      }
    }
    applyRbac(admin);
    VkSandboxE2E.installCrds(admin);
    String token =
        core.createNamespacedServiceAccountToken(
                "vk-sandbox",
                "sandbox-system",
                new AuthenticationV1TokenRequest()
                    .spec(new V1TokenRequestSpec().expirationSeconds(3600L)))
            .execute()
            .getStatus()
            .getToken();
    Path temp = TempTrees.create("vk-rbac-");
    Path kubeconfig = VkSandboxE2E.writeKubeconfig(admin, token, temp.resolve("kubeconfig"));
    int port = VkSandboxE2E.freePort();
    Sandboxd sandboxd = VkSandboxE2E.startSandboxd(temp, port);
    Files.writeString(temp.resolve("token"), VkSandboxE2E.ROOT);
    String nodeName =
        "vk-rbac-" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt());
    VkConfig config =
        VkConfig.parse(
            List.of(
                "--node-name=" + nodeName,
                "--node-ip=127.0.0.1",
                "--listen-addr=127.0.0.1:" + VkSandboxE2E.freePort(),
                "--sandboxd-url=http://127.0.0.1:" + port,
                "--sandboxd-token-file=" + temp.resolve("token"),
                "--state-path=" + temp.resolve("state/claims.json"),
                "--publish-inventory",
                "--publish-interval=2s"),
            Map.of());
    try (sandboxd;
        SandboxdClient daemon =
            SandboxdClient.builder("http://127.0.0.1:" + port).token(VkSandboxE2E.ROOT).build();
        VkSandbox vk = VkSandbox.start(config, kubeconfig)) {
      assertThat(vk.kubeletPort()).isEqualTo(config.listenPort());
      core.createNamespacedPod(ns.name(), VkSandboxE2E.pod("p", null, nodeName)).execute();
      var running = VkSandboxE2E.awaitRunning(core, ns.name(), "p");
      assertThat(running.getStatus().getPodIP()).isEqualTo("127.0.0.1");
      await()
          .atMost(Duration.ofSeconds(60))
          .ignoreExceptions()
          .until(
              () ->
                  new CustomObjectsApi(admin)
                          .getClusterCustomObject(
                              "sandbox.cocoonstack.io", "v1beta1", "nodeinventories", nodeName)
                          .execute()
                      != null);
      core.deleteNamespacedPod("p", ns.name()).execute();
      await().atMost(Duration.ofSeconds(60)).until(() -> daemon.list(ns.name() + "/p").isEmpty());
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> core.listNamespacedPod(ns.name()).execute().getItems().isEmpty());
    } finally {
      try {
        core.deleteNode(nodeName).execute();
      } catch (ApiException | RuntimeException e) {
        // best effort
      }
    }
  }

  static void applyRbac(ApiClient admin) throws Exception {
    String all = Files.readString(VkSandboxE2E.manifests().resolve("rbac.yaml"));
    for (String doc : all.split("(?m)^---$")) {
      if (doc.lines().allMatch(l -> l.isBlank() || l.startsWith("#"))) {
        continue;
      }
      DynamicKubernetesObject object = Dynamics.newFromYaml(doc);
      String kind = object.getKind();
      DynamicKubernetesApi api =
          switch (kind) {
            case "ServiceAccount" -> new DynamicKubernetesApi("", "v1", "serviceaccounts", admin);
            case "ClusterRole" ->
                new DynamicKubernetesApi("rbac.authorization.k8s.io", "v1", "clusterroles", admin);
            case "ClusterRoleBinding" ->
                new DynamicKubernetesApi(
                    "rbac.authorization.k8s.io", "v1", "clusterrolebindings", admin);
            default -> throw new IllegalStateException("unexpected kind " + kind);
          };
      String namespace = object.getMetadata().getNamespace();
      var existing =
          namespace == null
              ? api.get(object.getMetadata().getName())
              : api.get(namespace, object.getMetadata().getName());
      if (existing.isSuccess()) {
        object
            .getMetadata()
            .setResourceVersion(existing.getObject().getMetadata().getResourceVersion());
        var updated = api.update(object);
        assertThat(updated.isSuccess()).as(kind + " " + updated.getStatus()).isTrue();
      } else {
        var created = api.create(object);
        assertThat(created.isSuccess()).as(kind + " " + created.getStatus()).isTrue();
      }
    }
  }
}
