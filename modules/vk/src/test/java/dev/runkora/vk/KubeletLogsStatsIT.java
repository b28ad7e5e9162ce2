package dev.runkora.vk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.runkora.api.ApiException;
import dev.runkora.api.SandboxStats;
import io.kubernetes.client.openapi.JSON;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.HttpsURLConnection;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509ExtendedTrustManager;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The kubelet API's followed {@code /containerLogs}, {@code /stats/summary} and {@code
 * /metrics/resource} on a real TLS listener, over fakes of sandboxd's log and stats (anonymous
 * auth: the reviews are the E2E tests' part).
 */
@Timeout(60)
class KubeletLogsStatsIT {
  static final long MIB = 1 << 20;

  @TempDir Path dir;
  final TestingSandboxd sandboxd = new TestingSandboxd();
  final LiveLog log = new LiveLog();

  /**
   * What the fake stats call does per claim id: absent = measured (50 MiB, the CPU time of {@link
   * #cpuNanos}); "memoryOnly" answers like the reference (no CPU figure).
   */
  final Map<String, String> statsMode = new ConcurrentHashMap<>();

  /** The CPU time the fake answers per claim id: absent = 1.5 s. */
  final Map<String, Long> cpuNanos = new ConcurrentHashMap<>();

  /** When the fake's figures were read (a clock the tests move). */
  volatile Instant measuredAt = Instant.parse("2026-12-02T10:00:00.123Z");

  final SandboxdPort.Stats stats =
      id -> {
        switch (statsMode.getOrDefault(id, "measured")) {
          case "failing" -> throw new ApiException(404, "unknown sandbox");
          case "slow" -> {
            try {
              Thread.sleep(Duration.ofSeconds(20));
            } catch (InterruptedException e) {
              throw new ApiException("interrupted", e);
            }
            throw new ApiException(500, "too late");
          }
          case "unmeasured" -> {
            return new SandboxStats(id, 2, 1024 * MIB, 0, false, false, measuredAt);
          }
          case "memoryOnly" -> {
            return new SandboxStats(id, 2, 1024 * MIB, 50 * MIB, true, false, measuredAt);
          }
          default -> {
            return new SandboxStats(
                id,
                2,
                1024 * MIB,
                50 * MIB,
                true,
                false,
                measuredAt,
                cpuNanos.getOrDefault(id, 1_500_000_000L),
                true);
          }
        }
      };

  SandboxPods pods;
  KubeletServer server;

  @BeforeEach
  void start() throws Exception {
    pods = SandboxPodsTest.standalone(sandboxd, dir.resolve("claims.json"));
    pods.start();
    for (String name : List.of("bare", "quiet", "broken", "stuck")) {
      pods.createPod(SandboxPodsTest.pod(name, Map.of(), null));
    }
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    VkConfig config =
        VkConfig.parse(
            List.of(
                "--anonymous-auth",
                "--node-name=vk-it",
                "--listen-addr=127.0.0.1:" + port,
                "--state-path=" + dir.resolve("state.json")),
            Map.of());
    SandboxdPort.Exec noExec =
        (id, token, argv, stdin, output) -> {
          throw new ApiException(500, "no exec here");
        };
    server = new KubeletServer(config, pods, noExec, log, stats, null, List.of());
    server.start();
  }

  @AfterEach
  void stop() {
    server.close();
    pods.close();
  }

  private String id(String pod) {
    return pods.settled("ns/" + pod).orElseThrow().id();
  }

  @Test
  void aFollowedLogStreamsWhatIsWrittenUntilTheCallerLeaves() throws Exception {
    log.write("kept\n");
    Follow f = follow("/containerLogs/ns/bare/agent?follow=true");
    assertThat(f.status).isEqualTo(200);
    await().atMost(Duration.ofSeconds(10)).until(() -> f.text().equals("kept\n"));
    log.write("written later\n");
    await().atMost(Duration.ofSeconds(10)).until(() -> f.text().equals("kept\nwritten later\n"));
    assertThat(log.closed.getCount()).isEqualTo(1);
    f.leave();
    // The caller left: the followed sandboxd stream is closed, not held until the claim ends.
    assertThat(log.closed.await(10, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void aFollowedLogStartsAtTheTailAndEndsWithTheClaim() throws Exception {
    log.write("a\nb\nc\n");
    Follow f = follow("/containerLogs/ns/bare/agent?follow=true&tailLines=1");
    await().atMost(Duration.ofSeconds(10)).until(() -> f.text().equals("c\n"));
    log.write("d\n");
    await().atMost(Duration.ofSeconds(10)).until(() -> f.text().equals("c\nd\n"));
    log.end();
    assertThat(f.done.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(f.text()).isEqualTo("c\nd\n");
  }

  @Test
  void aFollowedLogStopsAtLimitBytes() throws Exception {
    log.write("hello\n");
    Follow f = follow("/containerLogs/ns/bare/agent?follow=1&limitBytes=9");
    await().atMost(Duration.ofSeconds(10)).until(() -> f.text().equals("hello\n"));
    log.write("world\n");
    assertThat(f.done.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(f.text()).isEqualTo("hello\nwor");
    assertThat(log.closed.await(10, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void aLogWithoutFollowIsTheLogSoFarAndBadOptionsAreRefused() throws Exception {
    log.write("one\ntwo\n");
    assertThat(get("/containerLogs/ns/bare/agent?tailLines=1&timestamps=true&sinceSeconds=5"))
        .isEqualTo("200 two\n");
    assertThat(get("/containerLogs/ns/bare/agent?tailLines=-1"))
        .isEqualTo("400 tailLines must be at least 0, not -1");
    assertThat(get("/containerLogs/ns/bare/agent?limitBytes=0"))
        .isEqualTo("400 limitBytes must be at least 1, not 0");
    assertThat(get("/containerLogs/ns/bare/agent?sinceSeconds=soon"))
        .isEqualTo("400 sinceSeconds must be an integer, not 'soon'");
    assertThat(get("/containerLogs/ns/bare/agent?follow=maybe"))
        .isEqualTo("400 follow must be true or false, not 'maybe'");
    assertThat(get("/containerLogs/ns/nowhere/agent?follow=true")).startsWith("404 ");
  }

  @Test
  void theSummaryListsEachMeasuredSandboxAndLeavesOutFailingAndSlowOnes() throws Exception {
    statsMode.put(id("quiet"), "unmeasured");
    statsMode.put(id("broken"), "failing");
    statsMode.put(id("stuck"), "slow");
    long began = System.nanoTime();
    String answer = get("/stats/summary");
    long tookMs = (System.nanoTime() - began) / 1_000_000;
    assertThat(answer).startsWith("200 ");
    // A stuck sandbox costs the timeout, not its 20 s.
    assertThat(tookMs).isLessThan(KubeletServer.STATS_TIMEOUT.toMillis() + 3000);
    Map<String, Object> summary = json(answer.substring(4));

    Map<String, Object> node = map(summary.get("node"));
    assertThat(node.get("nodeName")).isEqualTo("vk-it");
    assertThat(Instant.parse((String) node.get("startTime"))).isBefore(Instant.now());
    // Not every sandbox's memory is known, so the node's is not given.
    assertThat(node).doesNotContainKey("memory").doesNotContainKey("cpu");

    List<Map<String, Object>> list = list(summary.get("pods"));
    assertThat(list)
        .extracting(p -> map(p.get("podRef")).get("name"))
        .containsExactlyInAnyOrder("bare", "quiet");
    Map<String, Object> bare = podNamed(list, "bare");
    assertThat(map(bare.get("podRef")))
        .containsEntry("namespace", "ns")
        .containsEntry("uid", pods.pod("ns/bare").orElseThrow().getMetadata().getUid());
    assertThat(bare.get("startTime")).isNotNull();
    Map<String, Object> cpu = map(bare.get("cpu"));
    assertThat(((Number) cpu.get("usageCoreNanoSeconds")).longValue()).isEqualTo(1_500_000_000L);
    assertThat(cpu.get("time")).isEqualTo(measuredAt.toString());
    // One sample: no rate yet.
    assertThat(cpu).doesNotContainKey("usageNanoCores");
    Map<String, Object> memory = map(bare.get("memory"));
    assertThat(((Number) memory.get("workingSetBytes")).longValue()).isEqualTo(50 * MIB);
    assertThat(((Number) memory.get("usageBytes")).longValue()).isEqualTo(50 * MIB);
    assertThat(((Number) memory.get("availableBytes")).longValue()).isEqualTo(974 * MIB);
    assertThat(memory.get("time")).isNotNull();
    Map<String, Object> container = list(bare.get("containers")).getFirst();
    assertThat(container.get("name")).isEqualTo("agent");
    assertThat(container.get("startTime")).isEqualTo(bare.get("startTime"));
    assertThat(map(container.get("memory")).get("workingSetBytes"))
        .isEqualTo(memory.get("workingSetBytes"));
    assertThat(map(container.get("cpu")).get("usageCoreNanoSeconds"))
        .isEqualTo(cpu.get("usageCoreNanoSeconds"));

    Map<String, Object> quiet = podNamed(list, "quiet");
    assertThat(quiet).doesNotContainKey("memory").doesNotContainKey("cpu");
    assertThat(list(quiet.get("containers")).getFirst())
        .doesNotContainKey("memory")
        .doesNotContainKey("cpu");
  }

  @Test
  void theSummaryGivesTheCpuRateBetweenTwoSamplesAndNoCpuWhereNoneWasMeasured() throws Exception {
    statsMode.put(id("quiet"), "memoryOnly");
    cpuNanos.put(id("bare"), 1_000_000_000L);
    Map<String, Object> first = json(get("/stats/summary").substring(4));
    assertThat(map(podNamed(list(first.get("pods")), "bare").get("cpu")))
        .doesNotContainKey("usageNanoCores");

    // Half a core's worth over 2 s; a second call within the rate window keeps the rate.
    measuredAt = measuredAt.plusSeconds(2);
    cpuNanos.put(id("bare"), 2_000_000_000L);
    for (int i = 0; i < 2; i++) {
      Map<String, Object> summary = json(get("/stats/summary").substring(4));
      Map<String, Object> cpu = map(podNamed(list(summary.get("pods")), "bare").get("cpu"));
      assertThat(((Number) cpu.get("usageNanoCores")).longValue()).isEqualTo(500_000_000L);
      assertThat(((Number) cpu.get("usageCoreNanoSeconds")).longValue()).isEqualTo(2_000_000_000L);
      // The reference's answer has no CPU figure: the Pod keeps its memory and gets no cpu.
      Map<String, Object> quiet = podNamed(list(summary.get("pods")), "quiet");
      assertThat(quiet).containsKey("memory").doesNotContainKey("cpu");
      // So the node's CPU is not known either; its memory is.
      Map<String, Object> node = map(summary.get("node"));
      assertThat(node).doesNotContainKey("cpu").containsKey("memory");
    }
  }

  @Test
  void resourceMetricsAreTheKubeletsSeriesWithMillisecondTimestamps() throws Exception {
    statsMode.put(id("quiet"), "unmeasured");
    statsMode.put(id("broken"), "failing");
    statsMode.put(id("stuck"), "slow");
    HttpsURLConnection connection = open("/metrics/resource");
    String body;
    try {
      assertThat(connection.getResponseCode()).isEqualTo(200);
      assertThat(connection.getContentType()).startsWith("text/plain; version=0.0.4");
      body = new String(connection.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    } finally {
      connection.disconnect();
    }
    long ms = measuredAt.toEpochMilli();
    long start =
        SandboxPods.time(pods.settled("ns/bare").orElseThrow().claimedAt()).toEpochSecond();
    String bare = "{container=\"agent\",namespace=\"ns\",pod=\"bare\"}";
    assertThat(body.lines().filter(l -> !l.startsWith("#")).toList())
        .containsExactlyInAnyOrder(
            "container_cpu_usage_seconds_total" + bare + " 1.5 " + ms,
            "container_memory_working_set_bytes" + bare + " " + 50 * MIB + " " + ms,
            "container_start_time_seconds" + bare + " " + start + " " + ms,
            "pod_cpu_usage_seconds_total{namespace=\"ns\",pod=\"bare\"} 1.5 " + ms,
            "pod_memory_working_set_bytes{namespace=\"ns\",pod=\"bare\"} " + 50 * MIB + " " + ms,
            // Two sandboxes did not answer: no node figures, and the error is flagged.
            "scrape_error 1");
    assertThat(body)
        .contains("# TYPE container_cpu_usage_seconds_total counter\n")
        .contains("# TYPE container_memory_working_set_bytes gauge\n")
        .contains("# HELP container_start_time_seconds ");
  }

  @Test
  void theNodesResourceMetricsAreSumsThatDoNotGoBackWhenASandboxEnds() throws Exception {
    cpuNanos.put(id("bare"), 250_000_000L);
    String body = get("/metrics/resource");
    long ms = Instant.now().toEpochMilli();
    assertThat(body).startsWith("200 ").contains("\nscrape_error 0\n");
    assertThat(body).contains("\nnode_memory_working_set_bytes " + 4 * 50 * MIB + " ");
    String nodeCpu =
        body.lines()
            .filter(l -> l.startsWith("node_cpu_usage_seconds_total "))
            .findFirst()
            .orElseThrow();
    String[] fields = nodeCpu.split(" ");
    assertThat(fields[1]).isEqualTo("4.75");
    // The node's samples are dated when the answers were in.
    assertThat(Long.parseLong(fields[2])).isBetween(ms - 10_000, ms);

    pods.deletePod(pods.pod("ns/bare").orElseThrow());
    await().atMost(Duration.ofSeconds(10)).until(() -> pods.settled("ns/bare").isEmpty());
    String after = get("/metrics/resource");
    assertThat(after).doesNotContain("pod=\"bare\"");
    // The ended sandbox's last counter stays in the node's, so the counter never goes back.
    assertThat(after).contains("\nnode_cpu_usage_seconds_total 4.75 ");
    assertThat(after).contains("\nnode_memory_working_set_bytes " + 3 * 50 * MIB + " ");
  }

  @Test
  void subresourcesAreAKubeletsSoMetricsServersRoleIsEnough() {
    assertThat(KubeletServer.subresource("/metrics/resource")).isEqualTo("metrics");
    assertThat(KubeletServer.subresource("/metrics")).isEqualTo("metrics");
    assertThat(KubeletServer.subresource("/metricsx")).isEqualTo("proxy");
    assertThat(KubeletServer.subresource("/stats/summary")).isEqualTo("proxy");
    assertThat(KubeletServer.subresource("/containerLogs/ns/p/c")).isEqualTo("log");
    assertThat(KubeletServer.seconds(42_000)).isEqualTo("0.000042");
    assertThat(KubeletServer.seconds(3_000_000_000L)).isEqualTo("3");
    assertThat(KubeletServer.label("a\"b\\c")).isEqualTo("a\\\"b\\\\c");
  }

  @Test
  void theNodesMemoryIsTheSumOfItsSandboxesWhenAllAreMeasured() throws Exception {
    Map<String, Object> summary = json(get("/stats/summary").substring(4));
    assertThat(list(summary.get("pods"))).hasSize(4);
    Map<String, Object> memory = map(map(summary.get("node")).get("memory"));
    assertThat(((Number) memory.get("workingSetBytes")).longValue()).isEqualTo(4 * 50 * MIB);
    Map<String, Object> cpu = map(map(summary.get("node")).get("cpu"));
    assertThat(((Number) cpu.get("usageCoreNanoSeconds")).longValue()).isEqualTo(6_000_000_000L);
  }

  // ---- helpers ----

  private static Map<String, Object> podNamed(List<Map<String, Object>> list, String name) {
    return list.stream()
        .filter(p -> map(p.get("podRef")).get("name").equals(name))
        .findFirst()
        .orElseThrow();
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> map(Object o) {
    return (Map<String, Object>) o;
  }

  @SuppressWarnings("unchecked")
  private static List<Map<String, Object>> list(Object o) {
    return (List<Map<String, Object>>) o;
  }

  private static Map<String, Object> json(String body) {
    return JSON.deserialize(body, Map.class);
  }

  /** Trusts the node's self-signed certificate, and skips the host name check. */
  static final class TrustAll extends X509ExtendedTrustManager {
    @Override
    public void checkClientTrusted(X509Certificate[] chain, String type) {}

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String type) {}

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String type, Socket s) {}

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String type, Socket s) {}

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String type, SSLEngine e) {}

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String type, SSLEngine e) {}

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return new X509Certificate[0];
    }
  }

  private HttpsURLConnection open(String path) throws Exception {
    SSLContext ssl = SSLContext.getInstance("TLS");
    ssl.init(null, new TrustManager[] {new TrustAll()}, null);
    var connection =
        (HttpsURLConnection)
            java.net
                .URI
                .create("https://127.0.0.1:" + server.port() + path)
                .toURL()
                .openConnection();
    connection.setSSLSocketFactory(ssl.getSocketFactory());
    connection.setHostnameVerifier((host, session) -> true);
    connection.setConnectTimeout(10_000);
    connection.setReadTimeout(30_000);
    return connection;
  }

  /** One GET: "status body". */
  private String get(String path) throws Exception {
    HttpsURLConnection connection = open(path);
    try {
      int status = connection.getResponseCode();
      InputStream in = status < 400 ? connection.getInputStream() : connection.getErrorStream();
      return status
          + " "
          + (in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8));
    } finally {
      connection.disconnect();
    }
  }

  /**
   * A GET whose body is read as it arrives (java.net.http, whose body stream can be closed from
   * another thread, dropping the connection, as a caller that leaves does).
   */
  private Follow follow(String path) throws Exception {
    SSLContext ssl = SSLContext.getInstance("TLS");
    ssl.init(null, new TrustManager[] {new TrustAll()}, null);
    HttpClient http = HttpClient.newBuilder().sslContext(ssl).build();
    HttpResponse<InputStream> r =
        http.send(
            HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + server.port() + path)).build(),
            HttpResponse.BodyHandlers.ofInputStream());
    Follow f = new Follow(r.body(), r.statusCode());
    Thread.ofVirtual()
        .start(
            () -> {
              try (InputStream in = r.body()) {
                byte[] buffer = new byte[1024];
                int n;
                while ((n = in.read(buffer)) >= 0) {
                  f.body.write(buffer, 0, n);
                }
                f.done.countDown();
              } catch (IOException e) {
                // The test disconnected.
              }
            });
    return f;
  }

  /** A body being read. */
  static final class Follow {
    final InputStream stream;
    final int status;
    final ByteArrayOutputStream body = new ByteArrayOutputStream();
    final CountDownLatch done = new CountDownLatch(1);

    Follow(InputStream stream, int status) {
      this.stream = stream;
      this.status = status;
    }

    /** The caller leaves. */
    void leave() throws IOException {
      stream.close();
    }

    String text() {
      synchronized (body) {
        return body.toString(StandardCharsets.UTF_8);
      }
    }
  }

  /**
   * A sandbox output log: what is kept, and followers that get the kept log and then every write,
   * until {@link #end()} (the claim ends) or they are closed.
   */
  static final class LiveLog implements SandboxdPort.Logs {
    private static final byte[] END = new byte[0];
    private final ByteArrayOutputStream kept = new ByteArrayOutputStream();
    private final List<LinkedBlockingQueue<byte[]>> followers = new ArrayList<>();
    final CountDownLatch closed = new CountDownLatch(1);

    synchronized void write(String s) {
      byte[] b = s.getBytes(StandardCharsets.UTF_8);
      kept.writeBytes(b);
      followers.forEach(q -> q.add(b));
    }

    synchronized void end() {
      followers.forEach(q -> q.add(END));
    }

    @Override
    public synchronized byte[] logs(String id, String token) {
      return kept.toByteArray();
    }

    @Override
    public synchronized InputStream follow(String id, String token) {
      LinkedBlockingQueue<byte[]> q = new LinkedBlockingQueue<>();
      q.add(kept.toByteArray());
      followers.add(q);
      return new InputStream() {
        byte[] chunk = new byte[0];
        int at;
        boolean ended;

        @Override
        public int read() {
          throw new UnsupportedOperationException();
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
          while (at >= chunk.length) {
            if (ended) {
              return -1;
            }
            try {
              chunk = q.take();
            } catch (InterruptedException e) {
              throw new IOException("interrupted", e);
            }
            at = 0;
            if (chunk == END) {
              ended = true;
              return -1;
            }
          }
          int n = Math.min(len, chunk.length - at);
          System.arraycopy(chunk, at, b, off, n);
          at += n;
          return n;
        }

        @Override
        public void close() {
          closed.countDown();
        }
      };
    }
  }
}
