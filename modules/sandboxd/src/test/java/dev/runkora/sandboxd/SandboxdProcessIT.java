package dev.runkora.sandboxd;

import static org.assertj.core.api.Assertions.assertThat;

import dev.runkora.sandboxd.engine.ClaimStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The daemon as its own process, on the real {@code process} runtime and the {@code host} template,
 * over HTTP.
 */
class SandboxdProcessIT {

  private static final String ROOT = "it-root-token-7f3a9c";
  private static final String TENANT = "it-tenant-token-acme";

  @TempDir Path temp;

  /**
   * Daemons that stop or are killed leave claimed sandboxes running by design: delete whatever is
   * left through the runtime plugins, so that no test leaves mounts, cgroups or processes behind.
   */
  @AfterEach
  void destroyLeftovers() {
    for (String runtime : List.of("process", "bwrap")) {
      Leftovers.destroy(runtime, Leftovers.stateDir(temp.resolve("data"), runtime));
    }
  }

  private Path config(int port, int warm) throws Exception {
    return config(port, warm, "process");
  }

  private Path config(int port, int warm, String runtime) throws Exception {
    Path file = temp.resolve("config-" + runtime + "-" + warm + ".json");
    Files.writeString(
        file,
        """
        {"listen": "127.0.0.1:%d", "data_dir": "%s", "api_token": "%s",
         "tenants": [{"name": "acme", "token": "%s", "max_claims": 50}],
         "sync_claims": true, "runtime": "%s", "autoscaler": "static", "storage": "",
         "refill_concurrency": 4,
         "pools": [{"template": "host", "warm": %d}]}
        """
            .formatted(port, temp.resolve("data"), ROOT, TENANT, runtime, warm));
    return file;
  }

  @Test
  void versionFlagPrintsTheVersion() throws Exception {
    var process =
        new ProcessBuilder(DaemonProcess.command("-version")).redirectErrorStream(true).start();
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor()).isZero();
    assertThat(out).startsWith("kora-sandboxd ");
  }

  @Test
  void aDaemonProcessClaimsExecsAndReleases() throws Exception {
    int port = DaemonProcess.freePort();
    try (var daemon = DaemonProcess.start(config(port, 2), port, temp.resolve("log"))) {
      var api = new Api(port);
      var claim = api.post("/v1/claim", ROOT, "{\"template\":\"host\",\"claim_ref\":\"it/smoke\"}");
      assertThat(claim.status()).as(daemon.log()).isEqualTo(200);
      String id = claim.json().getString("id");
      String token = claim.json().getString("token");
      var exec =
          api.post("/v1/sandboxes/" + id + "/exec", token, "{\"argv\":[\"echo\",\"hello\"]}");
      assertThat(exec.json().getString("stdout")).isEqualTo("hello\n");
      assertThat(api.get("/v1/info", ROOT).json().getInt("claimed")).isEqualTo(1);
      assertThat(api.post("/v1/sandboxes/" + id + "/release", token, null).status()).isEqualTo(204);
      assertThat(api.get("/metrics", ROOT).body()).contains("sandboxd_releases_total 1");
    }
  }

  @Test
  void badInputGetsTheReferenceAnswersAndChangesNothing() throws Exception {
    int port = DaemonProcess.freePort();
    try (var daemon = DaemonProcess.start(config(port, 1), port, temp.resolve("log"))) {
      var api = new Api(port);
      var first = api.post("/v1/claim", ROOT, "{\"template\":\"host\"}");
      assertThat(first.status()).as(daemon.log()).isEqualTo(200);
      var good = first.json();
      String id = good.getString("id");
      String token = good.getString("token");
      String before = ClaimStore.image(temp.resolve("data")).toString();
      record Case(
          String method, String path, String token, String body, int status, String error) {}
      var cases =
          List.of(
              new Case("POST", "/v1/claim", ROOT, "{\"template\":", 400, "invalid request body"),
              new Case(
                  "POST",
                  "/v1/claim",
                  ROOT,
                  "{\"template\":\"host\",\"size\":\"huge\"}",
                  400,
                  "unknown size"),
              new Case(
                  "POST",
                  "/v1/claim",
                  ROOT,
                  "{\"template\":\"host\",\"net\":\"wifi\"}",
                  400,
                  "unknown net"),
              new Case(
                  "POST", "/v1/claim", ROOT, "{\"template\":\"../etc\"}", 400, "invalid template"),
              new Case(
                  "POST",
                  "/v1/claim",
                  ROOT,
                  "{\"template\":\"x\",\"c\":\"" + "y".repeat(1 << 20) + "\"}",
                  400,
                  "invalid request body"),
              new Case(
                  "POST",
                  "/v1/claim",
                  "wrong",
                  "{\"template\":\"host\"}",
                  401,
                  "invalid api token"),
              new Case("GET", "/v1/info", TENANT, null, 403, "operator token required"),
              new Case(
                  "POST",
                  "/v1/sandboxes/" + id + "/exec",
                  token,
                  "{\"argv\":[\"true\"],\"user\":\"root\"}",
                  400,
                  "unknown field"),
              new Case(
                  "POST",
                  "/v1/sandboxes/" + id + "/exec",
                  "0".repeat(32),
                  "{\"argv\":[\"true\"]}",
                  404,
                  "unknown sandbox"),
              new Case(
                  "POST",
                  "/v1/sandboxes/sb_00000000deadbeef/release",
                  ROOT,
                  null,
                  404,
                  "unknown sandbox"),
              new Case(
                  "PUT",
                  "/v1/pools",
                  ROOT,
                  "{\"pools\":[{\"template\":\"host\",\"warmup\":[\"x\"]}]}",
                  400,
                  "unknown field"),
              new Case("POST", "/v1/sandboxes/" + id + "/fork", ROOT, "{}", 404, "not found"));
      for (var c : cases) {
        var reply = api.send(c.method(), c.path(), c.token(), c.body());
        assertThat(reply.status())
            .as(c.toString().substring(0, Math.min(160, c.toString().length())))
            .isEqualTo(c.status());
        assertThat(reply.body()).as(c.method() + " " + c.path()).contains(c.error());
        assertThat(reply.error()).contains(c.error());
      }
      assertThat(ClaimStore.image(temp.resolve("data")).toString()).isEqualTo(before);
      assertThat(Files.exists(temp.resolve("data/pools.json"))).isFalse();
      var exec = api.post("/v1/sandboxes/" + id + "/exec", token, "{\"argv\":[\"true\"]}");
      assertThat(exec.json().getInt("exit_code")).isZero();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"process", "bwrap"})
  void killDuringConcurrentClaimsLosesNoAnsweredClaimAndLeavesNoStraySandbox(String runtime)
      throws Exception {
    int port = DaemonProcess.freePort();
    var answered = new ConcurrentLinkedQueue<jakarta.json.JsonObject>();
    var daemon = DaemonProcess.start(config(port, 4, runtime), port, temp.resolve("log"));
    var api = new Api(port);
    var enough = new CountDownLatch(10);
    var done = new CountDownLatch(100);
    try (daemon;
        var clients = Executors.newVirtualThreadPerTaskExecutor()) {
      for (int i = 0; i < 100; i++) {
        int n = i;
        clients.execute(
            () -> {
              try {
                var reply =
                    api.post(
                        "/v1/claim",
                        ROOT,
                        "{\"template\":\"host\",\"claim_ref\":\"it/" + n + "\"}");
                if (reply.status() == 200) {
                  answered.add(reply.json());
                  enough.countDown();
                }
              } catch (RuntimeException e) {
                // The daemon died under this request: no answer was sent.
              } finally {
                done.countDown();
              }
            });
      }
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (enough.getCount() > 0 && done.getCount() > 0 && System.nanoTime() < deadline) {
        Thread.sleep(1);
      }
      daemon.kill9();
    }
    assertThat(answered).as(daemon.log()).hasSizeGreaterThanOrEqualTo(5);

    try (var restarted =
        DaemonProcess.start(config(port, 0, runtime), port, temp.resolve("log2"))) {
      for (var claim : answered) {
        String id = claim.getString("id");
        var row = api.get("/v1/sandboxes/" + id, ROOT);
        assertThat(row.status()).as(id + "\n" + restarted.log()).isEqualTo(200);
        var exec =
            api.post(
                "/v1/sandboxes/" + id + "/exec",
                claim.getString("token"),
                "{\"argv\":[\"sh\",\"-c\",\"echo alive\"]}");
        assertThat(exec.json().getString("stdout")).isEqualTo("alive\n");
      }
      var saved = ClaimStore.image(temp.resolve("data"));
      Set<String> listed =
          saved.values().stream()
              .map(v -> v.asJsonObject().getString("vm_name"))
              .collect(Collectors.toSet());
      Set<String> ours =
          new HashSet<>(Leftovers.list(runtime, Leftovers.stateDir(temp.resolve("data"), runtime)));
      assertThat(ours).isEqualTo(listed);
      assertThat(saved.size()).isGreaterThanOrEqualTo(answered.size());
      Api.releaseAll(api, ROOT);
    }
  }

  @Test
  void aMalformedClaimsFileStopsTheProcessAndNamesTheFile() throws Exception {
    Path data = Files.createDirectories(temp.resolve("data"));
    Files.writeString(data.resolve("claims.json"), "{not json");
    int port = DaemonProcess.freePort();
    var process =
        new ProcessBuilder(DaemonProcess.command("-config", config(port, 0).toString()))
            .redirectErrorStream(true)
            .start();
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).isEqualTo(1);
    assertThat(out).contains(data.resolve("claims.json").toString()).contains("malformed");
  }
}
