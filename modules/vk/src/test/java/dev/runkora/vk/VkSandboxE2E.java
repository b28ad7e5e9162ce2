package dev.runkora.vk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.runkora.api.SandboxRow;
import dev.runkora.api.SandboxdClient;
import dev.runkora.plugin.autoscaler.staticpool.StaticAutoscalerProvider;
import dev.runkora.plugin.runtime.bwrap.BwrapRuntimeProvider;
import dev.runkora.plugin.runtime.process.ProcessRuntimeProvider;
import dev.runkora.sandboxd.Sandboxd;
import dev.runkora.sandboxd.SandboxdConfig;
import dev.runkora.sandboxd.plugins.PluginSet;
import dev.runkora.spi.autoscaler.AutoscalerContext;
import dev.runkora.spi.core.PluginConfig;
import dev.runkora.spi.registry.ImageManifest;
import dev.runkora.spi.registry.ImageReference;
import dev.runkora.spi.registry.ImageRegistry;
import dev.runkora.spi.registry.RootFilesystem;
import dev.runkora.spi.runtime.RuntimeContext;
import dev.runkora.testing.cluster.KubeClusterTest;
import dev.runkora.testing.cluster.TestNamespace;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoordinationV1Api;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.apis.CustomObjectsApi;
import io.kubernetes.client.openapi.apis.RbacAuthorizationV1Api;
import io.kubernetes.client.openapi.auth.ApiKeyAuth;
import io.kubernetes.client.openapi.models.AuthenticationV1TokenRequest;
import io.kubernetes.client.openapi.models.RbacV1Subject;
import io.kubernetes.client.openapi.models.V1ClusterRole;
import io.kubernetes.client.openapi.models.V1ClusterRoleBinding;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1Node;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1OwnerReference;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.kubernetes.client.openapi.models.V1PolicyRule;
import io.kubernetes.client.openapi.models.V1RoleRef;
import io.kubernetes.client.openapi.models.V1ServiceAccount;
import io.kubernetes.client.openapi.models.V1TokenRequestSpec;
import io.kubernetes.client.openapi.models.V1Toleration;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesApi;
import io.kubernetes.client.util.generic.dynamic.Dynamics;
import java.io.InputStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * vk-sandbox against a real control plane, with a real kora-sandboxd (process runtime, the host
 * template) behind the node: seed 001's "Verify", the Pod contract, releases and the restart.
 */
@KubeClusterTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class VkSandboxE2E {
  static final String ROOT = "vk-e2e-root-token";
  static final Duration WAIT = Duration.ofSeconds(60);

  Path temp;
  Sandboxd sandboxd;
  int sandboxdPort;
  SandboxdClient sandboxdClient;
  Path kubeconfig;
  String nodeName;
  VkConfig config;
  VkSandbox vk;
  CoreV1Api core;
  ApiClient client;

  @BeforeAll
  void start(ApiClient client) throws Exception {
    this.client = client;
    this.core = new CoreV1Api(client);
    temp = TempTrees.create("vk-e2e-");
    sandboxdPort = freePort();
    sandboxd = startSandboxd(temp, sandboxdPort);
    sandboxdClient =
        SandboxdClient.builder("http://127.0.0.1:" + sandboxd.port()).token(ROOT).build();
    Path token = temp.resolve("sandboxd-token");
    Files.writeString(token, ROOT);
    kubeconfig = writeKubeconfig(client, temp.resolve("kubeconfig"));
    installCrds(client);
    nodeName = "vk-e2e-" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt());
    List<String> extra =
        Boolean.getBoolean("kora.bench.disablePodEvents")
            ? List.of("--disable-pod-events")
            : List.of();
    config =
        VkConfig.parse(
            java.util.stream.Stream.concat(
                    extra.stream(),
                    java.util.stream.Stream.of(
                        "--node-name=" + nodeName,
                        "--node-ip=127.0.0.1",
                        "--listen-addr=127.0.0.1:" + freePort(),
                        "--sandboxd-url=http://127.0.0.1:" + sandboxd.port(),
                        "--sandboxd-token-file=" + token,
                        "--state-path=" + temp.resolve("state/claims.json"),
                        "--publish-inventory",
                        "--publish-interval=2s"))
                .toList(),
            Map.of());
    vk = VkSandbox.start(config, kubeconfig);
  }

  @AfterAll
  void stop() {
    if (vk != null) {
      vk.close();
    }
    try {
      core.deleteNode(nodeName).execute();
    } catch (ApiException | RuntimeException e) {
      // best effort
    }
    if (sandboxd != null) {
      sandboxd.close();
    }
  }

  @Test
  void theNodeIsReadyLabelledAndTaintedAndItsLeaseIsRenewed() throws Exception {
    await()
        .atMost(WAIT)
        .ignoreExceptions()
        .until(
            () ->
                core.readNode(nodeName).execute().getStatus().getConditions().stream()
                    .anyMatch(c -> c.getType().equals("Ready") && c.getStatus().equals("True")));
    V1Node node = core.readNode(nodeName).execute();
    assertThat(node.getMetadata().getLabels())
        .containsEntry("type", "virtual-kubelet")
        .containsEntry("sandbox.cocoonstack.io/runtime", "sandboxd");
    assertThat(node.getSpec().getTaints())
        .anyMatch(
            t ->
                t.getKey().equals("virtual-kubelet.io/provider")
                    && "sandboxd".equals(t.getValue())
                    && t.getEffect().equals("NoSchedule"));
    assertThat(node.getStatus().getAddresses())
        .anyMatch(a -> a.getType().equals("InternalIP") && a.getAddress().equals("127.0.0.1"));
    assertThat(node.getStatus().getDaemonEndpoints().getKubeletEndpoint().getPort())
        .isEqualTo(config.listenPort());
    assertThat(node.getStatus().getCapacity()).containsKeys("cpu", "memory", "pods");
    assertThat(node.getStatus().getAllocatable()).isEqualTo(node.getStatus().getCapacity());
    var lease =
        new CoordinationV1Api(client).readNamespacedLease(nodeName, "kube-node-lease").execute();
    assertThat(lease.getSpec().getHolderIdentity()).isEqualTo(nodeName);
    assertThat(lease.getSpec().getLeaseDurationSeconds()).isEqualTo(40);
    var first = lease.getSpec().getRenewTime();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                new CoordinationV1Api(client)
                    .readNamespacedLease(nodeName, "kube-node-lease")
                    .execute()
                    .getSpec()
                    .getRenewTime()
                    .isAfter(first));
  }

  @Test
  void aContractPodRunsWithThePodIpOfSandboxdAndDeletingItReleasesTheSandbox(TestNamespace ns)
      throws Exception {
    V1Pod pod = core.createNamespacedPod(ns.name(), pod("bare", null)).execute();
    V1Pod running = awaitRunning(ns.name(), "bare");
    assertThat(running.getStatus().getPodIP()).isEqualTo("127.0.0.1");
    assertThat(running.getSpec().getNodeName()).isEqualTo(nodeName);
    String id = running.getMetadata().getAnnotations().get("sandbox.cocoonstack.io/claim-id");
    assertThat(id).startsWith("sb_");
    assertThat(sandboxdClient.list(ns.name() + "/bare"))
        .extracting(SandboxRow::id)
        .containsExactly(id);

    // The NodeInventory names the sandbox by its claim reference.
    await()
        .atMost(WAIT)
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              @SuppressWarnings("unchecked")
              Map<String, Object> inventory =
                  (Map<String, Object>)
                      new CustomObjectsApi(client)
                          .getClusterCustomObject(
                              "sandbox.cocoonstack.io", "v1beta1", "nodeinventories", nodeName)
                          .execute();
              assertThat(inventory.get("node")).isEqualTo(nodeName);
              assertThat(inventory.get("address")).isEqualTo("127.0.0.1:" + sandboxd.port());
              assertThat(String.valueOf(inventory.get("entries")))
                  .contains("name=" + ns.name() + "/bare")
                  .contains("id=" + id);
            });

    // kubectl logs goes through the API server to the kubelet API (client certificate auth): it
    // shows what the commands run in the sandbox wrote, from sandboxd's log of the sandbox.
    assertThat(core.readNamespacedPodLog("bare", ns.name()).execute()).isNullOrEmpty();
    var echoed = ApiServerExec.exec(client, ns.name(), "bare", null, "echo", "hello-logs");
    assertThat(echoed.stdout()).isEqualTo("hello-logs\n");
    ApiServerExec.exec(client, ns.name(), "bare", null, "sh", "-c", "echo second >&2");
    assertThat(core.readNamespacedPodLog("bare", ns.name()).execute())
        .isEqualTo("hello-logs\nsecond\n");
    assertThat(core.readNamespacedPodLog("bare", ns.name()).tailLines(1).execute())
        .isEqualTo("second\n");
    assertThat(core.readNamespacedPodLog("bare", ns.name()).limitBytes(7).execute())
        .isEqualTo("hello-l");
    assertThat(new String(sandboxdClient.logs(id, ROOT, 7), StandardCharsets.UTF_8))
        .isEqualTo("second\n");

    core.deleteNamespacedPod("bare", ns.name()).execute();
    await().atMost(WAIT).until(() -> absent(ns.name(), "bare", pod.getMetadata().getUid()));
    await().atMost(WAIT).until(() -> sandboxdClient.list(ns.name() + "/bare").isEmpty());
  }

  @Test
  void kubectlExecRunsTheCommandInsideTheSandbox(TestNamespace ns) throws Exception {
    core.createNamespacedPod(ns.name(), pod("exec", null)).execute();
    awaitRunning(ns.name(), "exec");
    var osRelease = ApiServerExec.exec(client, ns.name(), "exec", null, "cat", "/etc/os-release");
    assertThat(osRelease.stdout())
        .contains("ID=")
        .isEqualTo(Files.readString(Path.of("/etc/os-release")));
    assertThat(osRelease.status()).contains("\"status\":\"Success\"");

    var failing =
        ApiServerExec.exec(client, ns.name(), "exec", null, "sh", "-c", "echo oops >&2; exit 3");
    assertThat(failing.stderr()).isEqualTo("oops\n");
    assertThat(failing.status()).contains("NonZeroExitCode").contains("\"message\":\"3\"");

    var echoed =
        ApiServerExec.exec(
            client, ns.name(), "exec", "hello sandbox".getBytes(StandardCharsets.UTF_8), "cat");
    assertThat(echoed.stdout()).isEqualTo("hello sandbox");
  }

  @Test
  void kubectlAttachWithStdinIsAShellInTheSandbox(TestNamespace ns) throws Exception {
    core.createNamespacedPod(ns.name(), pod("attach", null)).execute();
    awaitRunning(ns.name(), "attach");
    var attached =
        ApiServerExec.attach(
            client,
            ns.name(),
            "attach",
            "echo attached-$((1+1))\nexit\n".getBytes(StandardCharsets.UTF_8));
    assertThat(attached.stdout()).isEqualTo("attached-2\n");
    assertThat(attached.status()).contains("\"status\":\"Success\"");
  }

  @Test
  void kubectlAttachOverSpdyThroughTheApiServer(TestNamespace ns) throws Exception {
    // kubectl before WebSockets: the API server passes the SPDY upgrade through to the node.
    core.createNamespacedPod(ns.name(), pod("spdy", null)).execute();
    awaitRunning(ns.name(), "spdy");
    java.net.URI api = java.net.URI.create(client.getBasePath());
    String token = ((ApiKeyAuth) client.getAuthentication("BearerToken")).getApiKey();
    var group =
        new io.netty.channel.MultiThreadIoEventLoopGroup(
            1, io.netty.channel.nio.NioIoHandler.newFactory());
    try {
      var session =
          SpdyClient.open(
              group,
              api.getHost(),
              api.getPort(),
              "/api/v1/namespaces/" + ns.name() + "/pods/spdy/attach?stdin=true&stdout=true",
              token,
              true);
      session.send("echo attached-$((1+1))\nexit\n");
      session.closed.get(30, java.util.concurrent.TimeUnit.SECONDS);
      assertThat(session.text(SpdyClient.Session.STDOUT)).isEqualTo("attached-2\n");
      assertThat(session.text(SpdyClient.Session.ERROR)).contains("\"status\":\"Success\"");
    } finally {
      group.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS);
    }
  }

  @Test
  void kubectlAttachWithoutStdinFollowsTheSandboxOutput(TestNamespace ns) throws Exception {
    core.createNamespacedPod(ns.name(), pod("follow", null)).execute();
    awaitRunning(ns.name(), "follow");
    ApiServerExec.exec(client, ns.name(), "follow", null, "echo", "written-before");
    // What is written while attached arrives too: the attach follows the log.
    var attached =
        ApiServerExec.attachOutput(
            client,
            ns.name(),
            "follow",
            out -> out.contains("written-while-attached"),
            () -> {
              Thread.sleep(500);
              return ApiServerExec.exec(
                  client, ns.name(), "follow", null, "echo", "written-while-attached");
            });
    assertThat(attached.stdout()).isEqualTo("written-before\nwritten-while-attached\n");
  }

  @Test
  void kubeletApiLogsFollowSeesALineWrittenAfterTheFollowStartedAndEndsWithTheClaim(
      TestNamespace ns) throws Exception {
    V1Pod created = core.createNamespacedPod(ns.name(), pod("logs-follow", null)).execute();
    awaitRunning(ns.name(), "logs-follow");
    ApiServerExec.exec(client, ns.name(), "logs-follow", null, "echo", "before-follow");
    // kubectl logs -f: GET .../pods/{pod}/log?follow=true through the API server to the node.
    okhttp3.Call call =
        core.readNamespacedPodLog("logs-follow", ns.name()).follow(true).buildCall(null);
    java.io.ByteArrayOutputStream seen = new java.io.ByteArrayOutputStream();
    java.util.concurrent.CountDownLatch ended = new java.util.concurrent.CountDownLatch(1);
    try (okhttp3.Response response = call.execute()) {
      assertThat(response.code()).isEqualTo(200);
      InputStream body = response.body().byteStream();
      Thread.ofVirtual()
          .start(
              () -> {
                try {
                  byte[] buffer = new byte[1024];
                  int n;
                  while ((n = body.read(buffer)) >= 0) {
                    seen.write(buffer, 0, n);
                  }
                  ended.countDown();
                } catch (java.io.IOException e) {
                  // Cancelled below when the test fails before the end.
                }
              });
      await()
          .atMost(WAIT)
          .until(() -> seen.toString(StandardCharsets.UTF_8).equals("before-follow\n"));
      ApiServerExec.exec(client, ns.name(), "logs-follow", null, "echo", "after-follow");
      await()
          .atMost(WAIT)
          .until(
              () -> seen.toString(StandardCharsets.UTF_8).equals("before-follow\nafter-follow\n"));
      assertThat(ended.getCount()).isEqualTo(1);
      // Deleting the Pod releases the claim, which ends sandboxd's followed log and so the answer.
      core.deleteNamespacedPod("logs-follow", ns.name()).execute();
      assertThat(ended.await(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS)).isTrue();
      assertThat(seen.toString(StandardCharsets.UTF_8)).isEqualTo("before-follow\nafter-follow\n");
    } finally {
      call.cancel();
    }
    await()
        .atMost(WAIT)
        .until(() -> absent(ns.name(), "logs-follow", created.getMetadata().getUid()));
  }

  /**
   * {@code /stats/summary} as metrics-server reads it, through the API server's node proxy. The API
   * server refuses to proxy to a loopback node address (this class's node is 127.0.0.1), and the
   * process runtime measures no memory, so this runs a second node on a bwrap sandboxd (which
   * measures each sandbox's memory cgroup) at the host's own address.
   */
  @Test
  void kubeletApiStatsSummaryAndResourceMetricsShowTheRunningPodThroughTheNodeProxy(
      TestNamespace ns) throws Exception {
    String address = hostAddress();
    org.junit.jupiter.api.Assumptions.assumeTrue(
        address != null, "no non-loopback address for the node proxy");
    Path dir = Files.createTempDirectory(temp, "stats-");
    Sandboxd bwrap = startSandboxd(dir, freePort(), new BwrapRuntimeProvider(), "bwrap");
    String statsNode = nodeName + "-stats";
    VkSandbox second = null;
    try {
      Path token = dir.resolve("sandboxd-token");
      Files.writeString(token, ROOT);
      second =
          VkSandbox.start(
              VkConfig.parse(
                  List.of(
                      "--node-name=" + statsNode,
                      "--node-ip=" + address,
                      "--listen-addr=" + address + ":" + freePort(),
                      "--sandboxd-url=http://127.0.0.1:" + bwrap.port(),
                      "--sandboxd-token-file=" + token,
                      "--state-path=" + dir.resolve("state/claims.json")),
                  Map.of()),
              kubeconfig);
      V1Pod created = core.createNamespacedPod(ns.name(), pod("stats", null, statsNode)).execute();
      V1Pod running = awaitRunning(ns.name(), "stats");
      // Something to measure besides the sandbox's own processes, and CPU time to count.
      ApiServerExec.exec(client, ns.name(), "stats", null, "sh", "-c", "echo $$");
      ApiServerExec.exec(
          client,
          ns.name(),
          "stats",
          null,
          "sh",
          "-c",
          "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done");

      // What metrics-server reads: /api/v1/nodes/{node}/proxy/stats/summary.
      String body = core.connectGetNodeProxyWithPath(statsNode, "stats/summary").execute();
      Map<String, Object> summary = io.kubernetes.client.openapi.JSON.deserialize(body, Map.class);
      Map<?, ?> node = (Map<?, ?>) summary.get("node");
      assertThat(node.get("nodeName")).isEqualTo(statsNode);
      assertThat(node.get("startTime")).isNotNull();
      List<?> listed = (List<?>) summary.get("pods");
      assertThat(listed).hasSize(1);
      Map<?, ?> entry = (Map<?, ?>) listed.getFirst();
      Map<?, ?> podRef = (Map<?, ?>) entry.get("podRef");
      assertThat(podRef.get("name")).isEqualTo("stats");
      assertThat(podRef.get("namespace")).isEqualTo(ns.name());
      assertThat(podRef.get("uid")).isEqualTo(created.getMetadata().getUid());
      assertThat(java.time.Instant.parse((String) entry.get("startTime")))
          .isEqualTo(running.getStatus().getStartTime().toInstant());
      Map<?, ?> memory = (Map<?, ?>) entry.get("memory");
      assertThat(memory).as(body).isNotNull();
      double workingSet = ((Number) memory.get("workingSetBytes")).doubleValue();
      assertThat(workingSet).isGreaterThan(0);
      Map<?, ?> container = (Map<?, ?>) ((List<?>) entry.get("containers")).getFirst();
      assertThat(container.get("name")).isEqualTo("agent");
      assertThat(((Map<?, ?>) container.get("memory")).get("workingSetBytes"))
          .isEqualTo(memory.get("workingSetBytes"));
      // The bwrap runtime's cpuacct.usage, through sandboxd's cpu_usage_ns.
      Map<?, ?> cpu = (Map<?, ?>) entry.get("cpu");
      assertThat(cpu).as(body).isNotNull();
      double cpuNanos = ((Number) cpu.get("usageCoreNanoSeconds")).doubleValue();
      assertThat(cpuNanos).isGreaterThan(0);
      // The node's memory is its one sandbox's.
      assertThat(((Number) ((Map<?, ?>) node.get("memory")).get("workingSetBytes")).doubleValue())
          .isEqualTo(workingSet);
      System.out.printf(
          "stats/summary: sandbox working set %.1f MiB, CPU time %.1f ms%n",
          workingSet / (1 << 20), cpuNanos / 1e6);

      // What metrics-server 0.6+ reads: /api/v1/nodes/{node}/proxy/metrics/resource.
      String metrics = core.connectGetNodeProxyWithPath(statsNode, "metrics/resource").execute();
      String labels = "{container=\"agent\",namespace=\"" + ns.name() + "\",pod=\"stats\"}";
      String[] memorySample =
          resourceSample(metrics, "container_memory_working_set_bytes" + labels);
      String[] cpuSample = resourceSample(metrics, "container_cpu_usage_seconds_total" + labels);
      assertThat(Double.parseDouble(memorySample[1])).as(metrics).isGreaterThan(0);
      assertThat(Double.parseDouble(cpuSample[1])).as(metrics).isGreaterThan(0);
      // Millisecond timestamps of when sandboxd read the figures.
      long nowMs = System.currentTimeMillis();
      assertThat(Long.parseLong(cpuSample[2])).isBetween(nowMs - 60_000, nowMs + 5_000);
      assertThat(
              resourceSample(
                  metrics,
                  "pod_cpu_usage_seconds_total{namespace=\"" + ns.name() + "\",pod=\"stats\"}")[1])
          .isEqualTo(cpuSample[1]);
      assertThat(metrics).contains("\nscrape_error 0\n");
      System.out.printf(
          "metrics/resource: container working set %s B, CPU %s s%n",
          memorySample[1], cpuSample[1]);

      core.deleteNamespacedPod("stats", ns.name()).execute();
      await().atMost(WAIT).until(() -> absent(ns.name(), "stats", created.getMetadata().getUid()));
    } finally {
      if (second != null) {
        second.close();
      }
      try {
        core.deleteNode(statsNode).execute();
      } catch (ApiException | RuntimeException e) {
        // best effort
      }
      bwrap.closeAndDestroy();
    }
  }

  /** The fields (series, value, timestamp) of the one sample of a series in a metrics text. */
  static String[] resourceSample(String metrics, String series) {
    List<String[]> found =
        metrics.lines().filter(l -> l.startsWith(series + " ")).map(l -> l.split(" ")).toList();
    assertThat(found).as(metrics).hasSize(1);
    assertThat(found.getFirst()).as(metrics).hasSize(3);
    return found.getFirst();
  }

  /** A non-loopback IPv4 address of this host, which the API server agrees to proxy to. */
  static String hostAddress() throws java.net.SocketException {
    for (var nic : java.util.Collections.list(java.net.NetworkInterface.getNetworkInterfaces())) {
      if (!nic.isUp() || nic.isLoopback()) {
        continue;
      }
      for (var a : java.util.Collections.list(nic.getInetAddresses())) {
        if (a instanceof java.net.Inet4Address
            && !a.isLoopbackAddress()
            && !a.isLinkLocalAddress()
            && !a.isAnyLocalAddress()) {
          return a.getHostAddress();
        }
      }
    }
    return null;
  }

  @Test
  void bearerTokenCallersOfTheKubeletApiAreReviewedAndNeedNodesLog(TestNamespace ns)
      throws Exception {
    core.createNamespacedPod(ns.name(), pod("tokened", null)).execute();
    awaitRunning(ns.name(), "tokened");
    ApiServerExec.exec(client, ns.name(), "tokened", null, "echo", "seen-by-token");
    String token = serviceAccountToken(ns, "log-reader");
    String path = "/containerLogs/" + ns.name() + "/tokened/agent";

    assertThat(kubeletGet(path, token).status()).isEqualTo(403);
    assertThat(kubeletGet(path, token + "x").status()).isEqualTo(401);
    assertThat(kubeletGet(path, null).status()).isEqualTo(401);

    String role = grant(ns, "log-reader", "nodes/log");
    try {
      await()
          .atMost(Duration.ofSeconds(20))
          .untilAsserted(
              () -> {
                var answer = kubeletGet(path, token);
                assertThat(answer.status()).isEqualTo(200);
                assertThat(answer.body()).isEqualTo("seen-by-token\n");
              });
      // nodes/log grants logs, not exec or /pods (nodes/proxy).
      assertThat(kubeletGet("/pods", token).status()).isEqualTo(403);
    } finally {
      revoke(role);
    }
  }

  @Test
  void resourceMetricsNeedNodesMetricsAsOnAKubeletSoMetricsServersRoleIsEnough(TestNamespace ns)
      throws Exception {
    String token = serviceAccountToken(ns, "metrics-reader");
    assertThat(kubeletGet("/metrics/resource", token).status()).isEqualTo(403);
    assertThat(kubeletGet("/metrics/resource", null).status()).isEqualTo(401);

    // The rule metrics-server 0.6+ is granted for scraping kubelets.
    String role = grant(ns, "metrics-reader", "nodes/metrics");
    try {
      await()
          .atMost(Duration.ofSeconds(20))
          .untilAsserted(
              () -> {
                var answer = kubeletGet("/metrics/resource", token);
                assertThat(answer.status()).isEqualTo(200);
                assertThat(answer.body()).contains("scrape_error ");
              });
      // nodes/metrics grants the metrics, not the Summary API or /pods (nodes/proxy).
      assertThat(kubeletGet("/stats/summary", token).status()).isEqualTo(403);
      assertThat(kubeletGet("/pods", token).status()).isEqualTo(403);
    } finally {
      revoke(role);
    }
  }

  /** Creates a ServiceAccount in the namespace and returns a token of it. */
  private String serviceAccountToken(TestNamespace ns, String name) throws ApiException {
    core.createNamespacedServiceAccount(
            ns.name(), new V1ServiceAccount().metadata(new V1ObjectMeta().name(name)))
        .execute();
    return core.createNamespacedServiceAccountToken(
            name, ns.name(), new AuthenticationV1TokenRequest().spec(new V1TokenRequestSpec()))
        .execute()
        .getStatus()
        .getToken();
  }

  /**
   * Grants a ServiceAccount {@code get} on one node subresource through a ClusterRole and its
   * binding, both named after the account; returns that name for {@link #revoke}.
   */
  private String grant(TestNamespace ns, String account, String subresource) throws ApiException {
    String role = "vk-e2e-" + account + "-" + ns.name();
    var rbac = new RbacAuthorizationV1Api(client);
    rbac.createClusterRole(
            new V1ClusterRole()
                .metadata(new V1ObjectMeta().name(role))
                .rules(
                    List.of(
                        new V1PolicyRule()
                            .apiGroups(List.of(""))
                            .resources(List.of(subresource))
                            .verbs(List.of("get")))))
        .execute();
    rbac.createClusterRoleBinding(
            new V1ClusterRoleBinding()
                .metadata(new V1ObjectMeta().name(role))
                .roleRef(
                    new V1RoleRef()
                        .apiGroup("rbac.authorization.k8s.io")
                        .kind("ClusterRole")
                        .name(role))
                .subjects(
                    List.of(
                        new RbacV1Subject()
                            .kind("ServiceAccount")
                            .name(account)
                            .namespace(ns.name()))))
        .execute();
    return role;
  }

  private void revoke(String role) throws ApiException {
    var rbac = new RbacAuthorizationV1Api(client);
    rbac.deleteClusterRoleBinding(role).execute();
    rbac.deleteClusterRole(role).execute();
  }

  /** An answer of the kubelet API. */
  record Answer(int status, String body) {}

  /** GET on this node's kubelet API, straight (not through the API server), trusting any cert. */
  Answer kubeletGet(String path, String bearer) throws Exception {
    javax.net.ssl.TrustManager[] trustAll = {
      new javax.net.ssl.X509TrustManager() {
        @Override
        public void checkClientTrusted(java.security.cert.X509Certificate[] chain, String type) {}

        @Override
        public void checkServerTrusted(java.security.cert.X509Certificate[] chain, String type) {}

        @Override
        public java.security.cert.X509Certificate[] getAcceptedIssuers() {
          return new java.security.cert.X509Certificate[0];
        }
      }
    };
    javax.net.ssl.SSLContext ssl = javax.net.ssl.SSLContext.getInstance("TLS");
    ssl.init(null, trustAll, null);
    var connection =
        (javax.net.ssl.HttpsURLConnection)
            java.net
                .URI
                .create("https://127.0.0.1:" + config.listenPort() + path)
                .toURL()
                .openConnection();
    connection.setSSLSocketFactory(ssl.getSocketFactory());
    connection.setHostnameVerifier((host, session) -> true);
    connection.setConnectTimeout(10_000);
    connection.setReadTimeout(10_000);
    if (bearer != null) {
      connection.setRequestProperty("Authorization", "Bearer " + bearer);
    }
    try {
      int status = connection.getResponseCode();
      InputStream in = status < 400 ? connection.getInputStream() : connection.getErrorStream();
      return new Answer(
          status, in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8));
    } finally {
      connection.disconnect();
    }
  }

  /**
   * Benchmark, figures printed: Pod create → Running on this node with a warm pool, against Pod
   * create → bound (scheduled) in the same run. Serial, {@code -Dkora.bench.pods} Pods (20) after
   * {@code -Dkora.bench.warmup} untimed ones (30).
   */
  @Test
  void benchmarkCreateToRunningAgainstCreateToBound(TestNamespace ns) throws Exception {
    int n = Integer.getInteger("kora.bench.pods", 20);
    var api =
        new io.kubernetes.client.util.generic.GenericKubernetesApi<>(
            V1Pod.class,
            io.kubernetes.client.openapi.models.V1PodList.class,
            "",
            "v1",
            "pods",
            watchClient());
    Map<String, Long> bound = new java.util.concurrent.ConcurrentHashMap<>();
    Map<String, java.util.concurrent.CompletableFuture<Long>> running =
        new java.util.concurrent.ConcurrentHashMap<>();
    var watch = api.watch(ns.name(), new io.kubernetes.client.util.generic.options.ListOptions());
    Thread watcher =
        Thread.ofPlatform()
            .daemon()
            .start(
                () -> {
                  try {
                    for (var event : watch) {
                      V1Pod p = event.object;
                      if (p == null || p.getMetadata() == null) {
                        continue;
                      }
                      long now = System.nanoTime();
                      String name = p.getMetadata().getName();
                      if (p.getSpec() != null && p.getSpec().getNodeName() != null) {
                        bound.putIfAbsent(name, now);
                      }
                      if (p.getStatus() != null && "Running".equals(p.getStatus().getPhase())) {
                        running
                            .computeIfAbsent(
                                name, k -> new java.util.concurrent.CompletableFuture<>())
                            .complete(now);
                      }
                    }
                  } catch (RuntimeException e) {
                    // the watch closed
                  }
                });
    Thread.sleep(500);
    // A node agent that has served Pods before: the JVM's compilers are done with the create path
    // before the timed Pods (the control plane's Go code needs no such start).
    int warmup = Integer.getInteger("kora.bench.warmup", 30);
    List<Long> toBound = new ArrayList<>();
    List<Long> toRunning = new ArrayList<>();
    for (int i = -warmup; i < n; i++) {
      String name = i < 0 ? "warmup" + i : "bench-" + i;
      var done = running.computeIfAbsent(name, k -> new java.util.concurrent.CompletableFuture<>());
      long start = System.nanoTime();
      core.createNamespacedPod(ns.name(), pod(name, null)).execute();
      long end = done.get(60, java.util.concurrent.TimeUnit.SECONDS);
      if (i >= 0) {
        toRunning.add(end - start);
        toBound.add(bound.getOrDefault(name, end) - start);
      }
    }
    watch.close();
    watcher.join(5000);
    java.util.Collections.sort(toBound);
    java.util.Collections.sort(toRunning);
    System.out.printf(
        java.util.Locale.ROOT,
        "vk-sandbox bench (%d pods, serial, warm pool): create->bound p50 %.1f ms p99 %.1f ms;"
            + " create->Running p50 %.1f ms p99 %.1f ms; Running/bound p50 ratio %.2f%n",
        n,
        toBound.get(n / 2) / 1e6,
        toBound.get(Math.min(n - 1, (int) Math.ceil(n * 0.99) - 1)) / 1e6,
        toRunning.get(n / 2) / 1e6,
        toRunning.get(Math.min(n - 1, (int) Math.ceil(n * 0.99) - 1)) / 1e6,
        (double) toRunning.get(n / 2) / Math.max(1, toBound.get(n / 2)));
    assertThat(toRunning).hasSize(n);
  }

  ApiClient watchClient() {
    return VkSandbox.kube(kubeconfig).watchClient();
  }

  @Test
  void anAliveOwnerPreservesTheClaimForAReplacementAndItsDeletionReleasesIt(TestNamespace ns)
      throws Exception {
    V1ConfigMap owner =
        core.createNamespacedConfigMap(
                ns.name(), new V1ConfigMap().metadata(new V1ObjectMeta().name("owner")))
            .execute();
    V1OwnerReference ref =
        new V1OwnerReference()
            .apiVersion("v1")
            .kind("ConfigMap")
            .name("owner")
            .uid(owner.getMetadata().getUid())
            .controller(true);
    V1Pod first = core.createNamespacedPod(ns.name(), pod("owned", ref)).execute();
    String id =
        awaitRunning(ns.name(), "owned")
            .getMetadata()
            .getAnnotations()
            .get("sandbox.cocoonstack.io/claim-id");
    core.deleteNamespacedPod("owned", ns.name()).execute();
    await().atMost(WAIT).until(() -> absent(ns.name(), "owned", first.getMetadata().getUid()));
    assertThat(sandboxdClient.list(ns.name() + "/owned"))
        .extracting(SandboxRow::id)
        .containsExactly(id);

    core.createNamespacedPod(ns.name(), pod("owned", ref)).execute();
    V1Pod replacement = awaitRunning(ns.name(), "owned");
    assertThat(replacement.getMetadata().getAnnotations())
        .containsEntry("sandbox.cocoonstack.io/claim-id", id);
    assertThat(sandboxdClient.list(ns.name() + "/owned")).hasSize(1);

    // Deleting the owner: the garbage collector deletes the Pod, whose owner is then gone.
    core.deleteNamespacedConfigMap("owner", ns.name()).execute();
    await().atMost(WAIT).until(() -> sandboxdClient.list(ns.name() + "/owned").isEmpty());
  }

  @Test
  void aPreservedClaimIsReleasedByTheOwnerRecheckWhenTheOwnerGoesAfterThePod(TestNamespace ns)
      throws Exception {
    V1ConfigMap owner =
        core.createNamespacedConfigMap(
                ns.name(), new V1ConfigMap().metadata(new V1ObjectMeta().name("later")))
            .execute();
    V1OwnerReference ref =
        new V1OwnerReference()
            .apiVersion("v1")
            .kind("ConfigMap")
            .name("later")
            .uid(owner.getMetadata().getUid())
            .controller(true);
    V1Pod pod = core.createNamespacedPod(ns.name(), pod("orphaned", ref)).execute();
    awaitRunning(ns.name(), "orphaned");
    core.deleteNamespacedPod("orphaned", ns.name()).execute();
    await().atMost(WAIT).until(() -> absent(ns.name(), "orphaned", pod.getMetadata().getUid()));
    assertThat(sandboxdClient.list(ns.name() + "/orphaned")).hasSize(1);
    core.deleteNamespacedConfigMap("later", ns.name()).execute();
    await().atMost(WAIT).until(() -> sandboxdClient.list(ns.name() + "/orphaned").isEmpty());
  }

  @Test
  void aRestartKeepsTheClaimsAndThePodsRunningWithoutClaimingTwice(TestNamespace ns)
      throws Exception {
    core.createNamespacedPod(ns.name(), pod("kept", null)).execute();
    String id =
        awaitRunning(ns.name(), "kept")
            .getMetadata()
            .getAnnotations()
            .get("sandbox.cocoonstack.io/claim-id");
    vk.close();
    assertThat(Files.readString(config.statePath())).contains(ns.name() + "/kept", id);

    // Restarted while sandboxd is down: the claim stays (quarantined), the Pod stays Running.
    sandboxd.close();
    vk = VkSandbox.start(config, kubeconfig);
    Thread.sleep(3000);
    assertThat(Files.readString(config.statePath())).contains(ns.name() + "/kept", id);
    assertThat(core.readNamespacedPod("kept", ns.name()).execute().getStatus().getPhase())
        .isEqualTo("Running");

    // sandboxd back: the claim is verified, new Pods are served, nothing is claimed twice.
    sandboxd = startSandboxd(temp, sandboxdPort);
    core.createNamespacedPod(ns.name(), pod("after", null)).execute();
    awaitRunning(ns.name(), "after");
    V1Pod kept = core.readNamespacedPod("kept", ns.name()).execute();
    assertThat(kept.getStatus().getPhase()).isEqualTo("Running");
    assertThat(kept.getMetadata().getAnnotations())
        .containsEntry("sandbox.cocoonstack.io/claim-id", id);
    assertThat(sandboxdClient.list(ns.name() + "/kept"))
        .extracting(SandboxRow::id)
        .containsExactly(id);
    core.deleteNamespacedPod("kept", ns.name()).execute();
    await().atMost(WAIT).until(() -> sandboxdClient.list(ns.name() + "/kept").isEmpty());
  }

  @Test
  void aLeaseThatEndsTurnsThePodFailedWithSandboxLeaseExpired(TestNamespace ns) throws Exception {
    V1Pod pod = pod("short", null);
    pod.getMetadata().putAnnotationsItem("sandbox.cocoonstack.io/ttl-seconds", "2");
    core.createNamespacedPod(ns.name(), pod).execute();
    awaitRunning(ns.name(), "short");
    await()
        .atMost(Duration.ofSeconds(90))
        .untilAsserted(
            () -> {
              V1Pod p = core.readNamespacedPod("short", ns.name()).execute();
              assertThat(p.getStatus().getPhase()).isEqualTo("Failed");
              assertThat(p.getStatus().getReason()).isEqualTo("SandboxLeaseExpired");
            });
  }

  @Test
  void aPodWithoutWarmCapacityStaysPendingWithTheReason(TestNamespace ns) throws Exception {
    V1Pod pod = pod("nowhere", null);
    pod.getMetadata().putAnnotationsItem("sandbox.cocoonstack.io/template", "no-such-template");
    core.createNamespacedPod(ns.name(), pod).execute();
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              V1Pod p = core.readNamespacedPod("nowhere", ns.name()).execute();
              assertThat(p.getStatus().getPhase()).isEqualTo("Pending");
              assertThat(p.getStatus().getReason()).isEqualTo("ProviderFailed");
              assertThat(p.getStatus().getMessage()).contains("sandboxd");
            });
    await()
        .atMost(WAIT)
        .until(
            () ->
                core.listNamespacedEvent(ns.name()).execute().getItems().stream()
                    .anyMatch(
                        e ->
                            "ProviderCreateFailed".equals(e.getReason())
                                && "Warning".equals(e.getType())
                                && "nowhere".equals(e.getInvolvedObject().getName())));
  }

  // ---- helpers ----

  V1Pod pod(String name, V1OwnerReference owner) {
    return pod(name, owner, nodeName);
  }

  static V1Pod pod(String name, V1OwnerReference owner, String nodeName) {
    V1ObjectMeta meta =
        new V1ObjectMeta()
            .name(name)
            .annotations(
                new java.util.HashMap<>(
                    Map.of(
                        "sandbox.cocoonstack.io/runtime", "sandboxd",
                        "sandbox.cocoonstack.io/template", "host")));
    if (owner != null) {
      meta.ownerReferences(List.of(owner));
    }
    return new V1Pod()
        .metadata(meta)
        .spec(
            new V1PodSpec()
                .nodeSelector(Map.of("sandbox.cocoonstack.io/runtime", "sandboxd"))
                .tolerations(
                    List.of(
                        new V1Toleration()
                            .key("virtual-kubelet.io/provider")
                            .operator("Exists")
                            .effect("NoSchedule")))
                // This test's node only, so that other vk nodes in the cluster do not take it.
                .affinity(
                    new io.kubernetes.client.openapi.models.V1Affinity()
                        .nodeAffinity(
                            new io.kubernetes.client.openapi.models.V1NodeAffinity()
                                .requiredDuringSchedulingIgnoredDuringExecution(
                                    new io.kubernetes.client.openapi.models.V1NodeSelector()
                                        .addNodeSelectorTermsItem(
                                            new io.kubernetes.client.openapi.models
                                                    .V1NodeSelectorTerm()
                                                .addMatchFieldsItem(
                                                    new io.kubernetes.client.openapi.models
                                                            .V1NodeSelectorRequirement()
                                                        .key("metadata.name")
                                                        .operator("In")
                                                        .values(List.of(nodeName)))))))
                .containers(List.of(new V1Container().name("agent").image("host")))
                // client-java's model starts with an empty overhead map, which admission rejects.
                .overhead(null));
  }

  V1Pod awaitRunning(String ns, String name) {
    return awaitRunning(core, ns, name);
  }

  static V1Pod awaitRunning(CoreV1Api core, String ns, String name) {
    V1Pod[] holder = new V1Pod[1];
    await()
        .atMost(WAIT)
        .ignoreExceptions()
        .until(
            () -> {
              holder[0] = core.readNamespacedPod(name, ns).execute();
              return "Running".equals(holder[0].getStatus().getPhase())
                  && holder[0].getMetadata().getAnnotations() != null
                  && holder[0]
                      .getMetadata()
                      .getAnnotations()
                      .containsKey("sandbox.cocoonstack.io/claim-id");
            });
    return holder[0];
  }

  boolean absent(String ns, String name, String uid) {
    try {
      V1Pod p = core.readNamespacedPod(name, ns).execute();
      return !p.getMetadata().getUid().equals(uid);
    } catch (ApiException e) {
      return e.getCode() == 404;
    }
  }

  /** Creates the shipped NodeInventory CRDs (both groups); existing ones are kept. */
  static void installCrds(ApiClient client) throws Exception {
    for (String crd :
        List.of(
            "nodeinventories.sandbox.cocoonstack.io.yaml",
            "nodeinventories.extensions.agents.x-k8s.io.yaml")) {
      var object = Dynamics.newFromYaml(Files.readString(manifests().resolve(crd)));
      var created =
          new DynamicKubernetesApi(
                  "apiextensions.k8s.io", "v1", "customresourcedefinitions", client)
              .create(object);
      if (!created.isSuccess() && created.getHttpStatusCode() != 409) {
        throw new IllegalStateException(crd + ": " + created.getStatus());
      }
    }
  }

  static int freePort() throws Exception {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  static Path manifests() {
    Path p = Path.of("manifests");
    return Files.isDirectory(p) ? p : Path.of("modules/vk/manifests");
  }

  /** A kubeconfig with the test client's server, CA and bearer token. */
  static Path writeKubeconfig(ApiClient client, Path file) throws Exception {
    return writeKubeconfig(
        client, ((ApiKeyAuth) client.getAuthentication("BearerToken")).getApiKey(), file);
  }

  /** A kubeconfig with the test client's server and CA and the given bearer token. */
  static Path writeKubeconfig(ApiClient client, String token, Path file) throws Exception {
    InputStream ca = client.getSslCaCert();
    ca.reset();
    String caData = Base64.getEncoder().encodeToString(ca.readAllBytes());
    Files.writeString(
        file,
        """
        apiVersion: v1
        kind: Config
        clusters:
        - name: e2e
          cluster:
            server: %s
            certificate-authority-data: %s
        users:
        - name: e2e
          user:
            token: %s
        contexts:
        - name: e2e
          context: {cluster: e2e, user: e2e}
        current-context: e2e
        """
            .formatted(client.getBasePath(), caData, token));
    return file;
  }

  static Sandboxd startSandboxd(Path temp, int port) throws Exception {
    return startSandboxd(temp, port, new ProcessRuntimeProvider(), "process");
  }

  /** A sandboxd serving the {@code host} template on {@code runtime}. */
  static Sandboxd startSandboxd(
      Path temp, int port, dev.runkora.spi.runtime.RuntimeProvider runtimeProvider, String name)
      throws Exception {
    Path data = temp.resolve("sandboxd");
    SandboxdConfig config =
        new SandboxdConfig(
            "127.0.0.1",
            port,
            "",
            data,
            ROOT,
            Optional.empty(),
            List.of(),
            0,
            2,
            false,
            // Fewer warm sandboxes on a real runtime: each one costs this 2-core machine.
            List.of(
                new SandboxdConfig.Pool(
                    "host", "none", "small", name.equals("process") ? 4 : 1, 0)),
            name,
            Map.of(),
            SandboxdConfig.Registry.defaults(),
            "static",
            "");
    Files.createDirectories(data.resolve("runtime"));
    var runtime =
        runtimeProvider.create(
            PluginConfig.empty(),
            new RuntimeContext(data.resolve("runtime"), System.getLogger("runtime")));
    var autoscaler =
        new StaticAutoscalerProvider()
            .create(
                PluginConfig.empty(),
                new AutoscalerContext(InstantSource.system(), System.getLogger("autoscaler")));
    return Sandboxd.start(
        config, new PluginSet(runtime, List.of(new HostRegistry()), autoscaler, Optional.empty()));
  }

  /** Serves the {@code host} template as the host's own filesystem (read-only). */
  static final class HostRegistry implements ImageRegistry {
    @Override
    public boolean serves(String reference) {
      return reference.equals("host");
    }

    @Override
    public ImageReference resolve(String reference) {
      return new ImageReference(reference, "local", reference, "latest", "");
    }

    @Override
    public ImageManifest manifest(ImageReference reference) {
      throw new UnsupportedOperationException("no manifests for host");
    }

    @Override
    public RootFilesystem materialize(ImageReference reference, Consumer<String> progress) {
      return RootFilesystem.of(reference, "host", Path.of("/"), Map.of(), Map.of(), "/");
    }

    @Override
    public boolean isWarm(ImageReference reference) {
      return true;
    }

    @Override
    public void evict(ImageReference reference) {}

    @Override
    public void close() {}
  }
}
