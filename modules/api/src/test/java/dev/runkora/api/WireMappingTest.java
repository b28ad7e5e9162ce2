package dev.runkora.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class WireMappingTest {

  @Test
  void claimRequestWritesOnlyWhatDiffersFromDefaults() {
    String json = Wire.write(ClaimRequest.of("host").toJson());

    assertThat(json).isEqualTo("{\"template\":\"host\",\"net\":\"none\",\"size\":\"small\"}");
  }

  @Test
  void claimRequestRoundTripsEveryField() {
    ClaimRequest claim =
        new ClaimRequest(
            "base:24.04",
            "egress",
            "large",
            3600,
            "ns/a",
            true,
            Map.of("A", "1"),
            List.of(
                ClaimMount.hostPath("/srv/data", "/data", true),
                ClaimMount.workspace("agent-42", "/workspace", 1 << 30)));

    assertThat(ClaimRequest.fromJson(Wire.parseObject(Wire.write(claim.toJson()))))
        .isEqualTo(claim);
  }

  @Test
  void claimMountsFollowTheExtensionsShape() {
    assertThat(Wire.write(ClaimMount.hostPath("/srv", "/data", true).toJson()))
        .isEqualTo("{\"host_path\":\"/srv\",\"path\":\"/data\",\"mode\":\"ro\"}");
    assertThatThrownBy(() -> new ClaimMount("/a", "w", "/b", false, 0))
        .hasMessageContaining("exactly one");
    assertThatThrownBy(() -> ClaimMount.hostPath("/a", "relative", false))
        .hasMessageContaining("absolute");
    assertThatThrownBy(
            () ->
                ClaimMount.fromJson(
                    Wire.parseObject("{\"workspace\":\"w\",\"path\":\"/w\",\"mode\":\"x\"}")))
        .hasMessageContaining("ro or rw");
  }

  @Test
  void claimRequestRejectsAMissingTemplate() {
    assertThatThrownBy(() -> ClaimRequest.fromJson(Wire.parseObject("{\"size\":\"small\"}")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("template");
  }

  @Test
  void claimResponseReadsFractionalSecondsAndIgnoresUnknownFields() {
    ClaimResponse r =
        ClaimResponse.fromJson(
            Wire.parseObject(
                """
                {"id":"sb_77ace349e7cc1db6","token":"0123456789abcdef0123456789abcdef",
                 "deadline":"2026-07-06T00:05:00.123456Z","owner_addr":"10.0.0.5:7777",
                 "template_digest":"sha256:x","future":{"a":1}}
                """));

    assertThat(r.id()).isEqualTo("sb_77ace349e7cc1db6");
    assertThat(r.deadline()).isEqualTo(Instant.parse("2026-07-06T00:05:00.123456Z"));
    assertThat(r.ownerAddr()).isEqualTo("10.0.0.5:7777");
    assertThat(r.isRedirect()).isFalse();
  }

  @Test
  void claimResponseReadsARedirect() {
    ClaimResponse r =
        ClaimResponse.fromJson(Wire.parseObject("{\"redirect\":[\"10.0.0.6:7777\"]}"));

    assertThat(r.isRedirect()).isTrue();
    assertThat(r.redirect()).containsExactly("10.0.0.6:7777");
  }

  @Test
  void claimResponseToStringHidesTheToken() {
    ClaimResponse r = new ClaimResponse("sb_1", "secret-token-value", Instant.EPOCH, "", List.of());

    assertThat(r.toString()).doesNotContain("secret-token-value");
  }

  @Test
  void execRequestIsStrictAboutUnknownFields() {
    assertThatThrownBy(
            () -> ExecRequest.fromJson(Wire.parseObject("{\"argv\":[\"true\"],\"stdin\":\"x\"}")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unknown field stdin");
  }

  @Test
  void execRequestRejectsEmptyArgvAndNegativeTimeout() {
    assertThatThrownBy(() -> ExecRequest.fromJson(Wire.parseObject("{\"argv\":[]}")))
        .hasMessageContaining("argv");
    assertThatThrownBy(() -> ExecRequest.fromJson(Wire.parseObject("{}")))
        .hasMessageContaining("argv");
    assertThatThrownBy(() -> new ExecRequest(List.of("true"), "", Map.of(), -1))
        .hasMessageContaining("timeout_seconds");
  }

  @Test
  void execRequestWritesOnlyTheContractsFields() {
    ExecRequest exec = new ExecRequest(List.of("sh", "-c", "echo hi"), "/tmp", Map.of("A", "b"), 5);

    assertThat(Wire.write(exec.toJson()))
        .isEqualTo(
            "{\"argv\":[\"sh\",\"-c\",\"echo hi\"],\"cwd\":\"/tmp\",\"env\":{\"A\":\"b\"},"
                + "\"timeout_seconds\":5}");
    assertThat(ExecRequest.fromJson(exec.toJson())).isEqualTo(exec);
  }

  @Test
  void execResultNeedsAnExitCode() {
    assertThat(ExecResult.fromJson(Wire.parseObject("{\"exit_code\":3,\"stdout\":\"hi\\n\"}")))
        .isEqualTo(new ExecResult(3, "hi\n", ""));
    assertThatThrownBy(() -> ExecResult.fromJson(Wire.parseObject("{\"stdout\":\"\"}")))
        .hasMessageContaining("exit_code");
  }

  @Test
  void sandboxRowOmitsEmptyOptionalFieldsAndReadsTheReferenceExample() {
    SandboxRow row =
        SandboxRow.fromJson(
            Wire.parseObject(
                """
                {"id": "sb_1", "key": {"template": "base:24.04", "net": "none", "size": "small"},
                 "deadline": "2026-07-06T00:05:00Z", "claimed_at": "2026-07-06T00:00:00Z",
                 "hibernated": false, "claim_ref": "default/my-sandbox", "volumes": []}
                """));

    assertThat(row.key()).isEqualTo(new PoolKey("base:24.04", "none", "small"));
    assertThat(row.claimedAt()).contains(Instant.parse("2026-07-06T00:00:00Z"));
    assertThat(row.claimRef()).isEqualTo("default/my-sandbox");
    assertThat(row.toJson().keySet())
        .containsExactlyInAnyOrder(
            "id", "key", "deadline", "claimed_at", "hibernated", "claim_ref");
  }

  @Test
  void sandboxRowWithoutClaimedAtStaysEmpty() {
    SandboxRow row =
        new SandboxRow(
            "sb_1", PoolKey.of("host"), Instant.EPOCH, Optional.empty(), false, false, "", "", "");

    assertThat(SandboxRow.fromJson(row.toJson())).isEqualTo(row);
  }

  @Test
  void infoReadsTheReferenceExample() {
    Info info =
        Info.fromJson(
            Wire.parseObject(
                """
                {"pools": [{"key": {"template": "base:24.04", "net": "none", "size": "small"},
                            "warm": 4, "refilling": 0, "target": 4, "golden": true}],
                 "claimed": 2, "hibernated": 1, "archived": 0,
                 "draining": true, "at_capacity": true, "at_capacity_reason": "memory",
                 "peers": ["10.0.0.6:7777"]}
                """));

    assertThat(info.pools())
        .containsExactly(new PoolStatus(new PoolKey("base:24.04", "none", "small"), 4, 0, 4, true));
    assertThat(info.claimed()).isEqualTo(2);
    assertThat(info.draining()).isTrue();
    assertThat(info.atCapacityReason()).isEqualTo("memory");
    assertThat(info.isWarm()).isTrue();
    assertThat(Info.fromJson(info.toJson())).isEqualTo(info);
  }

  @Test
  void infoLeavesOutFlagsThatAreOff() {
    Info info = new Info(List.of(), 0, 0, 0, false, false, "", List.of());

    assertThat(info.toJson().keySet())
        .containsExactlyInAnyOrder("pools", "claimed", "hibernated", "archived");
  }

  @Test
  void poolSpecBodyIsStrictAndValidated() {
    assertThat(Wire.write(PoolSpec.body(List.of(PoolSpec.of(PoolKey.of("host"), 4)))))
        .isEqualTo(
            "{\"pools\":[{\"template\":\"host\",\"net\":\"none\",\"size\":\"small\",\"warm\":4}]}");
    assertThatThrownBy(() -> new PoolSpec(PoolKey.of("host"), 4, 2, 0))
        .hasMessageContaining("warm_max");
    assertThatThrownBy(() -> PoolSpec.of(PoolKey.of("host"), -1)).hasMessageContaining("warm");
  }

  @Test
  void statsRoundTrip() {
    SandboxStats stats =
        new SandboxStats(
            "sb_1", 1, 512L << 20, 1234, true, false, Instant.parse("2026-01-01T00:00:00Z"));

    assertThat(SandboxStats.fromJson(stats.toJson())).isEqualTo(stats);
    assertThat(stats.toJson().containsKey("cpu_usage_ns")).isFalse();
  }

  @Test
  void statsCarryKorasCpuTimeOnlyWhenMeasured() {
    var at = Instant.parse("2026-01-01T00:00:00Z");
    var measured = new SandboxStats("sb_1", 1, 512L << 20, 1234, true, false, at, 987_654, true);
    assertThat(measured.toJson().getJsonNumber("cpu_usage_ns").longValue()).isEqualTo(987_654);
    assertThat(SandboxStats.fromJson(measured.toJson())).isEqualTo(measured);

    // The reference's answer has no CPU figure: read as not measured, never as an idle 0.
    var reference =
        SandboxStats.fromJson(
            Wire.parseObject(
                "{\"id\":\"sb_1\",\"cpu_count\":1,\"mem_total_bytes\":1,"
                    + "\"mem_used_bytes\":0,\"mem_used_measured\":false,\"hibernated\":false}"));
    assertThat(reference.cpuUsageMeasured()).isFalse();
    assertThat(reference.cpuUsageNs()).isZero();
    assertThatThrownBy(
            () ->
                SandboxStats.fromJson(
                    Wire.parseObject(
                        "{\"id\":\"sb_1\",\"cpu_usage_measured\":true,\"cpu_usage_ns\":\"x\"}")))
        .hasMessageContaining("cpu_usage_ns");
  }

  @Test
  void wrongFieldTypesAreClearErrors() {
    assertThatThrownBy(() -> Info.fromJson(Wire.parseObject("{\"pools\":{}}")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("pools");
    assertThatThrownBy(() -> Wire.parseObject("[1]")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Wire.parseObject("{")).isInstanceOf(IllegalArgumentException.class);
  }
}
