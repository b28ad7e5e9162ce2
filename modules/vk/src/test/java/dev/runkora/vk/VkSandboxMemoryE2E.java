package dev.runkora.vk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.runkora.sandboxd.Sandboxd;
import dev.runkora.testing.cluster.KubeClusterTest;
import dev.runkora.testing.cluster.TestNamespace;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;

/**
 * Benchmark, figures printed: the resident memory of vk-sandbox as its own JVM (launched from the
 * module path, default heap settings) with no Pods and with {@code -Dkora.bench.memory.pods} Pods
 * Running on its node. Runs only when that property is set.
 */
@KubeClusterTest
class VkSandboxMemoryE2E {

  @Test
  void nodeAgentMemoryWithManyPods(ApiClient client, TestNamespace ns) throws Exception {
    int n = Integer.getInteger("kora.bench.memory.pods", 0);
    assumeTrue(n > 0, "set -Dkora.bench.memory.pods=N to measure");
    CoreV1Api core = new CoreV1Api(client);
    Path temp = TempTrees.create("vk-mem-");
    int sandboxdPort = VkSandboxE2E.freePort();
    Path token = temp.resolve("token");
    Files.writeString(token, VkSandboxE2E.ROOT);
    Path kubeconfig = VkSandboxE2E.writeKubeconfig(client, temp.resolve("kubeconfig"));
    String nodeName = "vk-mem-" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt());
    List<String> flags =
        List.of(
            "--node-name=" + nodeName,
            "--node-ip=127.0.0.1",
            "--listen-addr=127.0.0.1:" + VkSandboxE2E.freePort(),
            "--sandboxd-url=http://127.0.0.1:" + sandboxdPort,
            "--sandboxd-token-file=" + token,
            "--state-path=" + temp.resolve("state/claims.json"));
    try (Sandboxd sandboxd = VkSandboxE2E.startSandboxd(temp, sandboxdPort)) {
      assertThat(sandboxd.port()).isEqualTo(sandboxdPort);
      Process vk = VkProcess.start(kubeconfig, temp.resolve("vk.log"), flags);
      try {
        await()
            .atMost(Duration.ofSeconds(60))
            .ignoreExceptions()
            .until(() -> core.readNode(nodeName).execute() != null);
        Thread.sleep(5000);
        long idle = rssKiB(vk.pid());
        long start = System.nanoTime();
        for (int i = 0; i < n; i++) {
          core.createNamespacedPod(ns.name(), VkSandboxE2E.pod("m-" + i, null, nodeName)).execute();
        }
        await()
            .atMost(Duration.ofSeconds(Math.max(120, n)))
            .pollInterval(Duration.ofSeconds(2))
            .until(
                () ->
                    core.listNamespacedPod(ns.name()).execute().getItems().stream()
                            .filter(p -> "Running".equals(p.getStatus().getPhase()))
                            .count()
                        == n);
        double seconds = (System.nanoTime() - start) / 1e9;
        Thread.sleep(5000);
        long loaded = rssKiB(vk.pid());
        System.out.printf(
            Locale.ROOT,
            "vk-sandbox memory: RSS idle %.1f MiB; with %d Pods Running %.1f MiB (%.1f KiB per"
                + " Pod); %d Pods created and Running in %.1f s%n",
            idle / 1024.0,
            n,
            loaded / 1024.0,
            (loaded - idle) / (double) n,
            n,
            seconds);
        assertThat(vk.isAlive()).isTrue();
      } finally {
        vk.destroy();
        vk.waitFor();
        try {
          core.deleteNode(nodeName).execute();
        } catch (io.kubernetes.client.openapi.ApiException e) {
          // best effort
        }
      }
    }
  }

  static long rssKiB(long pid) throws Exception {
    for (String line :
        Files.readAllLines(Path.of("/proc/" + pid + "/status"), StandardCharsets.UTF_8)) {
      if (line.startsWith("VmRSS:")) {
        return Long.parseLong(line.replaceAll("[^0-9]", ""));
      }
    }
    throw new IllegalStateException("no VmRSS for " + pid);
  }
}
