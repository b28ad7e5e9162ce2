package dev.runkora.sandboxd;

import static org.assertj.core.api.Assertions.assertThat;

import dev.runkora.sandboxd.engine.SandboxLogs;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;

class LogsTest extends DaemonFixture {

  private String id;
  private String token;

  private void claimOne() throws Exception {
    startWarm(1);
    var json = claim(ROOT, "{\"template\":\"host\"}").json();
    id = json.getString("id");
    token = json.getString("token");
  }

  private Api.Reply logs(String query, String bearer) {
    return api.get("/v1/sandboxes/" + id + "/logs" + query, bearer);
  }

  @Test
  void bufferedAndStreamedExecOutputAppearsInTheLogRaw() throws Exception {
    claimOne();
    assertThat(logs("", token).status()).isEqualTo(200);
    assertThat(logs("", token).body()).isEmpty();
    api.post(
        "/v1/sandboxes/" + id + "/exec",
        token,
        "{\"argv\":[\"sh\",\"-c\",\"echo hello-logs; echo oops >&2\"]}");
    var connection = api.open("POST", "/v1/sandboxes/" + id + "/exec/stream", token);
    connection.setDoOutput(true);
    try (var out = connection.getOutputStream()) {
      out.write("{\"argv\":[\"echo\",\"streamed\"]}".getBytes(StandardCharsets.UTF_8));
    }
    try (InputStream in = connection.getInputStream()) {
      in.readAllBytes();
    }
    var reply = logs("", token);
    assertThat(reply.status()).isEqualTo(200);
    assertThat(reply.body()).contains("hello-logs\n", "oops\n").endsWith("streamed\n");
    assertThat(reply.body()).hasSize("hello-logs\noops\nstreamed\n".length());
    assertThat(logs("?tail_bytes=9", ROOT).body()).isEqualTo("streamed\n");
  }

  @Test
  void theLogKeepsOnlyTheLastMebibyte() throws Exception {
    claimOne();
    var exec =
        api.post(
            "/v1/sandboxes/" + id + "/exec",
            token,
            "{\"argv\":[\"sh\",\"-c\",\"head -c 1500000 /dev/zero | tr '\\\\000' a; echo END\"]}");
    assertThat(exec.status()).isEqualTo(200);
    String body = logs("", token).body();
    assertThat(body).hasSize(SandboxLogs.CAP).endsWith("aaaEND\n");
    assertThat(body.substring(0, body.length() - 4)).matches("a+");
  }

  @Test
  void unknownIdWrongTokenAndBadQueryAreRefused() throws Exception {
    claimOne();
    assertThat(logs("", "wrong-token").status()).isEqualTo(404);
    assertThat(logs("", TENANT).status()).isEqualTo(404);
    assertThat(logs("", null).status()).isEqualTo(401);
    assertThat(api.get("/v1/sandboxes/sb_0000000000000000/logs", ROOT).status()).isEqualTo(404);
    assertThat(logs("?tail_bytes=-1", token).status()).isEqualTo(400);
    assertThat(logs("?follow=maybe", token).status()).isEqualTo(400);
  }

  @Test
  void releaseDeletesTheLog() throws Exception {
    claimOne();
    api.post("/v1/sandboxes/" + id + "/exec", token, "{\"argv\":[\"echo\",\"before\"]}");
    assertThat(logs("", token).body()).isEqualTo("before\n");
    assertThat(daemon.logCount()).isEqualTo(1);
    assertThat(api.post("/v1/sandboxes/" + id + "/release", token, "").status()).isEqualTo(204);
    assertThat(logs("", ROOT).status()).isEqualTo(404);
    assertThat(daemon.logCount()).isZero();
  }

  @Test
  void followStreamsNewOutputAndEndsWhenTheSandboxIsReleased() throws Exception {
    claimOne();
    api.post("/v1/sandboxes/" + id + "/exec", token, "{\"argv\":[\"echo\",\"first\"]}");
    var connection = api.open("GET", "/v1/sandboxes/" + id + "/logs?follow=true", token);
    assertThat(connection.getResponseCode()).isEqualTo(200);
    try (InputStream in = connection.getInputStream();
        var reader = Executors.newVirtualThreadPerTaskExecutor()) {
      var all = reader.submit(in::readAllBytes);
      api.post("/v1/sandboxes/" + id + "/exec", token, "{\"argv\":[\"echo\",\"second\"]}");
      api.post("/v1/sandboxes/" + id + "/release", token, "");
      assertThat(new String(all.get(), StandardCharsets.UTF_8)).isEqualTo("first\nsecond\n");
    }
  }

  @Test
  void concurrentAppendsKeepEveryChunkWholeInARingThatWraps() throws Exception {
    var logs = new SandboxLogs(1000);
    var log = logs.of("sbx-test");
    var writers = new ArrayList<Thread>();
    for (char c = 'a'; c < 'e'; c++) {
      byte[] chunk = String.valueOf(c).repeat(10).getBytes(StandardCharsets.US_ASCII);
      writers.add(
          Thread.ofPlatform()
              .start(
                  () -> {
                    for (int i = 0; i < 500; i++) {
                      log.append(chunk, 0, chunk.length);
                    }
                  }));
    }
    for (Thread t : writers) {
      t.join();
    }
    assertThat(log.from(0)).isEqualTo(4 * 500 * 10);
    String kept = new String(log.tail(Long.MAX_VALUE), StandardCharsets.US_ASCII);
    assertThat(kept).hasSize(1000).matches("(aaaaaaaaaa|bbbbbbbbbb|cccccccccc|dddddddddd)+");
    assertThat(new String(log.tail(15), StandardCharsets.US_ASCII)).hasSize(15);
    logs.drop("sbx-test");
    log.append(new byte[] {'x'}, 0, 1);
    assertThat(log.from(0)).isEqualTo(4 * 500 * 10);
    assertThat(logs.size()).isZero();
  }
}
