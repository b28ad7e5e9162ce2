package dev.runkora.vk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.runkora.api.SandboxRow;
import dev.runkora.api.SandboxdClient;
import dev.runkora.sandboxd.Sandboxd;
import dev.runkora.testing.cluster.KubeClusterTest;
import dev.runkora.testing.cluster.TestNamespace;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1Pod;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;

/** kill -9 of vk-sandbox (its own JVM) and a restart: claims survive, nothing is claimed twice. */
@KubeClusterTest
class VkSandboxKillE2E {

  @Test
  void aKilledAgentRestartsOnItsClaimsWithThePodsStillRunning(ApiClient client, TestNamespace ns)
      throws Exception {
    CoreV1Api core = new CoreV1Api(client);
    Path temp = TempTrees.create("vk-kill-");
    int sandboxdPort = VkSandboxE2E.freePort();
    Path token = temp.resolve("token");
    Files.writeString(token, VkSandboxE2E.ROOT);
    Path kubeconfig = VkSandboxE2E.writeKubeconfig(client, temp.resolve("kubeconfig"));
    String nodeName =
        "vk-kill-" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt());
    Path state = temp.resolve("state/claims.json");
    List<String> flags =
        List.of(
            "--node-name=" + nodeName,
            "--node-ip=127.0.0.1",
            "--listen-addr=127.0.0.1:" + VkSandboxE2E.freePort(),
            "--sandboxd-url=http://127.0.0.1:" + sandboxdPort,
            "--sandboxd-token-file=" + token,
            "--state-path=" + state);
    Path log = temp.resolve("vk.log");
    try (Sandboxd sandboxd = VkSandboxE2E.startSandboxd(temp, sandboxdPort);
        SandboxdClient daemon =
            SandboxdClient.builder("http://127.0.0.1:" + sandboxd.port())
                .token(VkSandboxE2E.ROOT)
                .build()) {
      Process vk = VkProcess.start(kubeconfig, log, flags);
      try {
        for (int i = 0; i < 3; i++) {
          core.createNamespacedPod(ns.name(), VkSandboxE2E.pod("k" + i, null, nodeName)).execute();
        }
        List<String> ids = new java.util.ArrayList<>();
        for (int i = 0; i < 3; i++) {
          V1Pod p = VkSandboxE2E.awaitRunning(core, ns.name(), "k" + i);
          ids.add(p.getMetadata().getAnnotations().get("sandbox.cocoonstack.io/claim-id"));
        }
        vk.destroyForcibly(); // SIGKILL
        vk.waitFor();
        assertThat(Files.readString(state)).contains(ids.get(0), ids.get(1), ids.get(2));

        vk = VkProcess.start(kubeconfig, log, flags);
        core.createNamespacedPod(ns.name(), VkSandboxE2E.pod("after", null, nodeName)).execute();
        VkSandboxE2E.awaitRunning(core, ns.name(), "after");
        for (int i = 0; i < 3; i++) {
          V1Pod p = core.readNamespacedPod("k" + i, ns.name()).execute();
          assertThat(p.getStatus().getPhase()).isEqualTo("Running");
          assertThat(daemon.list(ns.name() + "/k" + i))
              .extracting(SandboxRow::id)
              .containsExactly(ids.get(i));
        }
        // The restarted agent still holds the release credentials: a delete releases.
        core.deleteNamespacedPod("k0", ns.name()).execute();
        await()
            .atMost(Duration.ofSeconds(60))
            .until(() -> daemon.list(ns.name() + "/k0").isEmpty());
      } finally {
        vk.destroyForcibly();
        vk.waitFor();
        try {
          core.deleteNode(nodeName).execute();
        } catch (io.kubernetes.client.openapi.ApiException e) {
          // best effort
        }
      }
    }
  }
}
