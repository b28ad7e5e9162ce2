package dev.runkora.sandboxd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.runkora.common.json.Rfc3339;
import dev.runkora.sandboxd.engine.ClaimStore;
import dev.runkora.spi.runtime.RuntimeCapability;
import dev.runkora.spi.runtime.SandboxStats;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class ClaimLifecycleTest extends DaemonFixture {

  @Test
  void warmClaimAnswersIdTokenDeadlineAndOwner() throws Exception {
    startWarm(2);
    var reply = claim(ROOT, "{\"template\":\"host\"}");
    assertThat(reply.status()).isEqualTo(200);
    var json = reply.json();
    assertThat(json.getString("id")).matches("sb_[0-9a-f]{16}");
    assertThat(json.getString("token")).matches("[0-9a-f]{32}");
    assertThat(json.getString("owner_addr")).isEqualTo("127.0.0.1:" + daemon.port());
    Instant deadline = Rfc3339.parse(json.getString("deadline"));
    assertThat(deadline).isBetween(Instant.now().plusSeconds(290), Instant.now().plusSeconds(301));
  }

  @Test
  void warmSandboxesAreHandedOutLastInFirstOut() throws Exception {
    start(config(0, 0));
    runtime.createDelay = Duration.ZERO;
    // Fill the pool one by one, so the creation order is known.
    var order = new java.util.ArrayList<String>();
    for (int i = 1; i <= 3; i++) {
      api.send(
          "PUT", "/v1/pools", ROOT, "{\"pools\":[{\"template\":\"host\",\"warm\":" + i + "}]}");
      int want = i;
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> daemon.info().pools().getFirst().warm() == want);
      runtime.boxes.keySet().stream().filter(n -> !order.contains(n)).forEach(order::add);
    }
    api.send("PUT", "/v1/pools", ROOT, "{\"pools\":[{\"template\":\"host\",\"warm\":0}]}");
    claim(ROOT, "{\"template\":\"host\"}");
    var first = daemon.info();
    assertThat(first.claimed()).isEqualTo(1);
    // The newest warm sandbox is the claimed one: the two older ones are still warm.
    var store = ClaimStore.image(temp.resolve("data"));
    String vm = store.values().iterator().next().asJsonObject().getString("vm_name");
    assertThat(vm).isEqualTo(order.getLast());
  }

  @Test
  void refillsShareABoundedBudget() throws Exception {
    Path boxes = Files.createDirectories(temp.resolve("boxes"));
    runtime = new TestingRuntime(boxes);
    runtime.createDelay = Duration.ofMillis(300);
    start(config(6, 0));
    awaitWarm(6);
    assertThat(runtime.maxCreating.get()).isEqualTo(2);
  }

  @Test
  void aClaimTakesAWarmSandboxWithoutWaitingForTheRefillItStarts() throws Exception {
    startWarm(2);
    runtime.createDelay = Duration.ofSeconds(3);
    int created = runtime.created.get();
    assertThat(claim(ROOT, "{\"template\":\"host\"}").status()).isEqualTo(200);
    assertThat(claim(ROOT, "{\"template\":\"host\"}").status()).isEqualTo(200);
    // Both were served from the stack while their refills were still being made.
    assertThat(runtime.created.get()).isEqualTo(created);
    assertThat(api.get("/metrics", ROOT).body()).contains("sandboxd_claims_total{tier=\"warm\"} 2");
    // The refills start after the answers (the second at once: the pool is empty).
    await()
        .atMost(Duration.ofSeconds(2))
        .until(() -> daemon.info().pools().getFirst().refilling() > 0);
  }

  @Test
  void warmHitsAreRefilledToTheTargetWithoutOvershooting() throws Exception {
    startWarm(8);
    runtime.createDelay = Duration.ZERO;
    int created = runtime.created.get();
    // 7 and 6 left of 8: the refill after each hit is deferred (not at a quarter of the target
    // yet), and deferred asks coalesce; either way exactly the two taken are made again.
    assertThat(claim(ROOT, "{\"template\":\"host\"}").status()).isEqualTo(200);
    assertThat(claim(ROOT, "{\"template\":\"host\"}").status()).isEqualTo(200);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> daemon.info().pools().getFirst().warm() == 8);
    assertThat(runtime.created.get()).isEqualTo(created + 2);
  }

  @Test
  void aMissProvisionsColdAndMetricsCountTheTier() throws Exception {
    startWarm(1);
    assertThat(claim(ROOT, "{\"template\":\"host\"}").status()).isEqualTo(200);
    assertThat(claim(ROOT, "{\"template\":\"test/other\",\"size\":\"large\"}").status())
        .isEqualTo(200);
    String metrics = api.get("/metrics", ROOT).body();
    assertThat(metrics)
        .contains("sandboxd_claims_total{tier=\"warm\"} 1")
        .contains("sandboxd_claims_total{tier=\"cold\"} 1")
        .contains("sandboxd_claimed 2")
        .contains("# TYPE sandboxd_pool_warm gauge")
        .contains("sandboxd_pool_target{template=\"host\",net=\"none\",size=\"small\"} 1");
  }

  @Test
  void claimIsPersistedBeforeTheResponseInAPrivateFile() throws Exception {
    startWarm(1);
    String id =
        claim(ROOT, "{\"template\":\"host\",\"claim_ref\":\"ns/a\"}").json().getString("id");
    var file = temp.resolve("data").resolve(ClaimStore.JOURNAL);
    var saved = ClaimStore.image(temp.resolve("data"));
    assertThat(saved.keySet()).containsExactly(id);
    assertThat(saved.getJsonObject(id).getString("claim_ref")).isEqualTo("ns/a");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
        .isEqualTo("rw-------");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file.getParent())))
        .isEqualTo("rwx------");
  }

  @Test
  void aFailedCommitDestroysTheSandboxAndAnswers500() throws Exception {
    startWarm(1);
    storeOf().failWritesWith(new IOException("disk full"));
    int before = runtime.deleted.get();
    var reply = claim(ROOT, "{\"template\":\"host\"}");
    assertThat(reply.status()).isEqualTo(500);
    assertThat(reply.error()).contains("cannot persist");
    assertThat(runtime.deleted.get()).isEqualTo(before + 1);
    storeOf().failWritesWith(null);
    assertThat(api.get("/v1/sandboxes", ROOT).json().getJsonArray("sandboxes")).isEmpty();
    assertThat(api.get("/v1/info", ROOT).json().getInt("claimed")).isZero();
  }

  @Test
  void releaseDestroysAndASecondReleaseIs404() throws Exception {
    startWarm(1);
    var json = claim(ROOT, "{\"template\":\"host\"}").json();
    String id = json.getString("id");
    String token = json.getString("token");
    assertThat(api.post("/v1/sandboxes/" + id + "/release", token, null).status()).isEqualTo(204);
    assertThat(api.post("/v1/sandboxes/" + id + "/release", token, null).status()).isEqualTo(404);
    assertThat(ClaimStore.image(temp.resolve("data"))).isEmpty();
  }

  @Test
  void renewResetsTheLeaseAndClampsTo86400() throws Exception {
    startWarm(1);
    var json = claim(ROOT, "{\"template\":\"host\",\"ttl_seconds\":999999}").json();
    Instant deadline = Rfc3339.parse(json.getString("deadline"));
    assertThat(deadline).isBefore(Instant.now().plusSeconds(86_401));
    String path = "/v1/sandboxes/" + json.getString("id") + "/renew";
    var renewed = api.post(path, json.getString("token"), "{\"ttl_seconds\":60}");
    assertThat(renewed.status()).isEqualTo(200);
    assertThat(Rfc3339.parse(renewed.json().getString("deadline")))
        .isBefore(Instant.now().plusSeconds(61));
    var byRoot = api.post(path, ROOT, null);
    assertThat(Rfc3339.parse(byRoot.json().getString("deadline")))
        .isAfter(Instant.now().plusSeconds(290));
    assertThat(api.post(path, json.getString("token"), "{\"ttl_seconds\":").status())
        .isEqualTo(400);
  }

  @Test
  void theReaperDestroysExpiredClaims() throws Exception {
    startWarm(1);
    String id = claim(ROOT, "{\"template\":\"host\",\"ttl_seconds\":1}").json().getString("id");
    await()
        .atMost(Duration.ofSeconds(15))
        .until(() -> api.get("/v1/sandboxes/" + id, ROOT).status() == 404);
    assertThat(api.get("/metrics", ROOT).body()).contains("sandboxd_reaps_total 1");
  }

  @Test
  void maxClaimsAndTenantCapsAnswer429() throws Exception {
    start(config(0, 3));
    assertThat(claim(TENANT, "{\"template\":\"host\"}").status()).isEqualTo(200);
    assertThat(claim(TENANT, "{\"template\":\"host\"}").status()).isEqualTo(200);
    var tenantFull = claim(TENANT, "{\"template\":\"host\"}");
    assertThat(tenantFull.status()).isEqualTo(429);
    assertThat(claim(ROOT, "{\"template\":\"host\"}").status()).isEqualTo(200);
    var nodeFull = claim(ROOT, "{\"template\":\"host\"}");
    assertThat(nodeFull.status()).isEqualTo(429);
    assertThat(nodeFull.error()).isEqualTo("node at max_claims");
  }

  @Test
  void failedClaimsGiveTheirSlotBack() throws Exception {
    start(config(0, 1));
    assertThat(claim(ROOT, "{\"template\":\"test/missing\"}").status()).isEqualTo(404);
    runtime.failCreates = dev.runkora.spi.core.KoraException.resourceExhausted("host is full");
    assertThat(claim(ROOT, "{\"template\":\"host\"}").status()).isEqualTo(500);
    runtime.failCreates = null;
    assertThat(claim(ROOT, "{\"template\":\"host\"}").status()).isEqualTo(200);
    assertThat(claim(ROOT, "{\"template\":\"host\"}").status()).isEqualTo(429);
  }

  @Test
  void drainAnswers429AndDestroysWarmUntilLifted() throws Exception {
    startWarm(2);
    var info = api.post("/v1/drain", ROOT, null);
    assertThat(info.status()).isEqualTo(200);
    assertThat(info.json().getBoolean("draining")).isTrue();
    var refused = claim(ROOT, "{\"template\":\"host\"}");
    assertThat(refused.status()).isEqualTo(429);
    assertThat(refused.error()).isEqualTo("node draining");
    await().atMost(Duration.ofSeconds(5)).until(() -> runtime.boxes.isEmpty());
    var lifted = api.send("DELETE", "/v1/drain", ROOT, null);
    assertThat(lifted.json().containsKey("draining")).isFalse();
    awaitWarm(2);
    assertThat(claim(ROOT, "{\"template\":\"host\"}").status()).isEqualTo(200);
  }

  @Test
  void listingFiltersByClaimRefAndTenantsSeeOnlyTheirOwn() throws Exception {
    startWarm(2);
    claim(ROOT, "{\"template\":\"host\",\"claim_ref\":\"ns/root\"}");
    String tenantId =
        claim(TENANT, "{\"template\":\"host\",\"claim_ref\":\"ns/acme\"}").json().getString("id");
    assertThat(api.get("/v1/sandboxes", ROOT).json().getJsonArray("sandboxes")).hasSize(2);
    var filtered =
        api.get("/v1/sandboxes?claim_ref=ns/acme", ROOT).json().getJsonArray("sandboxes");
    assertThat(filtered).hasSize(1);
    assertThat(filtered.getJsonObject(0).getString("id")).isEqualTo(tenantId);
    assertThat(filtered.getJsonObject(0).containsKey("token")).isFalse();
    var own = api.get("/v1/sandboxes", TENANT).json().getJsonArray("sandboxes");
    assertThat(own).hasSize(1);
    assertThat(own.getJsonObject(0).getString("id")).isEqualTo(tenantId);
    var byId = api.get("/v1/sandboxes/" + tenantId, ROOT).json();
    assertThat(byId.getString("token")).matches("[0-9a-f]{32}");
    assertThat(byId.getJsonObject("key").getString("template")).isEqualTo("host");
  }

  @Test
  void putPoolsReplacesThePoolsAndPersistsThem() throws Exception {
    startWarm(1);
    var reply =
        api.send(
            "PUT",
            "/v1/pools",
            ROOT,
            "{\"pools\":[{\"template\":\"test/a\",\"size\":\"medium\",\"warm\":2,\"warm_max\":4}]}");
    assertThat(reply.status()).isEqualTo(200);
    var pools = reply.json().getJsonArray("pools");
    assertThat(pools).hasSize(1);
    assertThat(pools.getJsonObject(0).getJsonObject("key").getString("size")).isEqualTo("medium");
    assertThat(Files.readString(temp.resolve("data/pools.json"))).contains("test/a");
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> daemon.info().pools().getFirst().warm() == 2);
    // The retired host pool's warm sandbox is gone: only the two new ones remain.
    await().atMost(Duration.ofSeconds(5)).until(() -> runtime.boxes.size() == 2);
  }

  @Test
  void statsAndOwnerAnswerTheirShapes() throws Exception {
    startWarm(1);
    var json = claim(ROOT, "{\"template\":\"host\",\"size\":\"2xlarge\"}").json();
    String id = json.getString("id");
    var stats = api.get("/v1/sandboxes/" + id + "/stats", ROOT).json();
    assertThat(stats.getInt("cpu_count")).isEqualTo(8);
    assertThat(stats.getJsonNumber("mem_total_bytes").longValue()).isEqualTo(16L << 30);
    assertThat(stats.getBoolean("mem_used_measured")).isTrue();
    var owner = api.get("/v1/sandboxes/" + id + "/owner", json.getString("token"));
    assertThat(owner.json().getString("owner_addr")).isEqualTo("127.0.0.1:" + daemon.port());
  }

  @Test
  void statsAddTheCpuTimeOnlyWhenTheRuntimeMeasuredIt() throws Exception {
    startWarm(1);
    String id = claim(ROOT, "{\"template\":\"host\"}").json().getString("id");
    runtime.stats = SandboxStats.of(5 << 20, 1_234_567_890L, 2, Instant.now());
    var measured = api.get("/v1/sandboxes/" + id + "/stats", ROOT).json();
    assertThat(measured.getJsonNumber("cpu_usage_ns").longValue()).isEqualTo(1_234_567_890L);
    assertThat(measured.getBoolean("cpu_usage_measured")).isTrue();
    // The reference's fields keep their meaning next to the addition.
    assertThat(measured.getJsonNumber("mem_used_bytes").longValue()).isEqualTo(5 << 20);
    assertThat(measured.getBoolean("mem_used_measured")).isTrue();
    assertThat(measured.keySet())
        .containsExactlyInAnyOrder(
            "id",
            "cpu_count",
            "mem_total_bytes",
            "mem_used_bytes",
            "mem_used_measured",
            "hibernated",
            "measured_at",
            "cpu_usage_ns",
            "cpu_usage_measured");

    runtime.stats = SandboxStats.unmeasured(Instant.now());
    var unmeasured = api.get("/v1/sandboxes/" + id + "/stats", ROOT).json();
    assertThat(unmeasured.getBoolean("cpu_usage_measured")).isFalse();
    assertThat(unmeasured.containsKey("cpu_usage_ns")).isFalse();
    assertThat(unmeasured.getBoolean("mem_used_measured")).isFalse();
  }

  @Test
  void statsOfARuntimeWithoutStatsSayNothingWasMeasured() throws Exception {
    Path boxes = Files.createDirectories(temp.resolve("boxes"));
    runtime = new TestingRuntime(boxes, java.util.EnumSet.of(RuntimeCapability.NETWORK_NONE));
    start(config(1, 0));
    awaitWarm(1);
    String id = claim(ROOT, "{\"template\":\"host\"}").json().getString("id");
    var stats = api.get("/v1/sandboxes/" + id + "/stats", ROOT).json();
    assertThat(stats.getBoolean("cpu_usage_measured")).isFalse();
    assertThat(stats.containsKey("cpu_usage_ns")).isFalse();
  }

  private ClaimStore storeOf() throws Exception {
    var field = Sandboxd.class.getDeclaredField("store");
    field.setAccessible(true);
    return (ClaimStore) field.get(daemon);
  }
}
