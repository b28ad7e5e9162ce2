package dev.runkora.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The client's requests and its reading of answers, against a small scripted HTTP server. */
class SandboxdClientHttpTest {
  private static final String ROOT = "root-token-0123456789";

  /** What the server saw. */
  record Seen(String method, String uri, String authorization, String body) {}

  /** What the server answers next: status, content type, body chunks. */
  record Answer(int status, String contentType, List<String> chunks) {}

  private final ConcurrentLinkedQueue<Seen> seen = new ConcurrentLinkedQueue<>();
  private final ConcurrentLinkedQueue<Answer> answers = new ConcurrentLinkedQueue<>();
  private HttpServer server;
  private SandboxdClient client;

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/", this::handle);
    server.start();
    client =
        SandboxdClient.builder("127.0.0.1:" + server.getAddress().getPort()).token(ROOT).build();
  }

  @AfterEach
  void stop() {
    client.close();
    server.stop(0);
  }

  private void handle(HttpExchange exchange) throws IOException {
    String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
    seen.add(
        new Seen(
            exchange.getRequestMethod(),
            exchange.getRequestURI().toString(),
            exchange.getRequestHeaders().getFirst("Authorization"),
            body));
    Answer a = answers.poll();
    if (a == null) {
      a = new Answer(404, "application/json", List.of("{\"error\":\"not found\"}"));
    }
    exchange.getResponseHeaders().set("Content-Type", a.contentType());
    if (a.status() == 204) {
      exchange.sendResponseHeaders(204, -1);
      exchange.close();
      return;
    }
    exchange.sendResponseHeaders(a.status(), 0);
    try (OutputStream out = exchange.getResponseBody()) {
      for (String chunk : a.chunks()) {
        out.write(chunk.getBytes(StandardCharsets.UTF_8));
        out.flush();
      }
    }
  }

  private void answer(int status, String json) {
    answers.add(new Answer(status, "application/json", List.of(json)));
  }

  private Seen last() {
    List<Seen> all = new ArrayList<>(seen);
    return all.getLast();
  }

  @Test
  void claimSendsTheNodeTokenAndTheBody() {
    answer(
        200,
        "{\"id\":\"sb_0123456789abcdef\",\"token\":\"sbtok\",\"deadline\":\"2026-07-06T00:05:00Z\"}");

    ClaimResponse r = client.claim(ClaimRequest.of("host").withClaimRef("ns/a"));

    assertThat(r.id()).isEqualTo("sb_0123456789abcdef");
    assertThat(r.token()).isEqualTo("sbtok");
    assertThat(last())
        .isEqualTo(
            new Seen(
                "POST",
                "/v1/claim",
                "Bearer " + ROOT,
                "{\"template\":\"host\",\"net\":\"none\",\"size\":\"small\",\"claim_ref\":\"ns/a\"}"));
  }

  @Test
  void sandboxScopedCallsSendTheGivenToken() {
    answer(200, "{\"exit_code\":0,\"stdout\":\"hi\\n\",\"stderr\":\"\"}");

    ExecResult r = client.exec("sb_1", "sbtok", ExecRequest.of("echo", "hi"));

    assertThat(r).isEqualTo(new ExecResult(0, "hi\n", ""));
    assertThat(last().uri()).isEqualTo("/v1/sandboxes/sb_1/exec");
    assertThat(last().authorization()).isEqualTo("Bearer sbtok");
  }

  @Test
  void releasingASandboxThatIsGoneCountsAsReleased() {
    answers.add(new Answer(204, "application/json", List.of()));
    answer(404, "{\"error\":\"unknown sandbox\"}");

    assertThat(client.releaseIfPresent("sb_1", "t")).isTrue();
    assertThat(client.releaseIfPresent("sb_1", "t")).isFalse();
    assertThat(last().uri()).isEqualTo("/v1/sandboxes/sb_1/release");
  }

  @Test
  void errorAnswersCarryStatusAndMessage() {
    answer(429, "{\"error\":\"node draining\"}");

    assertThatThrownBy(() -> client.claim(ClaimRequest.of("host")))
        .isInstanceOfSatisfying(
            ApiException.class,
            e -> {
              assertThat(e.status()).isEqualTo(429);
              assertThat(e.error()).isEqualTo("node draining");
            })
        .hasMessageNotContaining(ROOT);
  }

  @Test
  void aListingWithoutItsFieldIsAnErrorNotAnEmptyList() {
    answer(200, "{}");

    assertThatThrownBy(() -> client.list()).isInstanceOf(ApiException.class);
  }

  @Test
  void listingFiltersByAnEncodedClaimRef() {
    answer(
        200,
        "{\"sandboxes\":[{\"id\":\"sb_1\",\"key\":{\"template\":\"host\"},"
            + "\"deadline\":\"2026-07-06T00:05:00Z\",\"claim_ref\":\"ns/a b\"}]}");

    List<SandboxRow> rows = client.list("ns/a b");

    assertThat(rows).extracting(SandboxRow::claimRef).containsExactly("ns/a b");
    assertThat(last().uri()).isEqualTo("/v1/sandboxes?claim_ref=ns%2Fa+b");
  }

  @Test
  void streamingExecSendsTheRequestLineAndStdinAndReadsFramesUntilTheExitCode() {
    String out = Base64.getEncoder().encodeToString("hello\n".getBytes(StandardCharsets.UTF_8));
    String err = Base64.getEncoder().encodeToString("oops".getBytes(StandardCharsets.UTF_8));
    answers.add(
        new Answer(
            200,
            "application/x-ndjson",
            List.of(
                "{\"stream\":\"stdout\",\"data\":\"" + out + "\"}\n",
                "\n",
                "{\"stream\":\"stderr\",\"data\":\"" + err + "\"}\n",
                "{\"exit_code\":3}\n")));
    ByteArrayOutputStream stdout = new ByteArrayOutputStream();
    ByteArrayOutputStream stderr = new ByteArrayOutputStream();

    int exit =
        client.execStream(
            "sb_1",
            "sbtok",
            ExecRequest.of("cat"),
            new ByteArrayInputStream("input".getBytes(StandardCharsets.UTF_8)),
            ExecOutput.to(stdout, stderr));

    assertThat(exit).isEqualTo(3);
    assertThat(stdout.toString(StandardCharsets.UTF_8)).isEqualTo("hello\n");
    assertThat(stderr.toString(StandardCharsets.UTF_8)).isEqualTo("oops");
    assertThat(last().uri()).isEqualTo("/v1/sandboxes/sb_1/exec/stream");
    assertThat(last().body()).isEqualTo("{\"argv\":[\"cat\"]}\ninput");
  }

  @Test
  void aStreamThatEndsWithoutAnExitCodeIsAnError() {
    answers.add(new Answer(200, "application/x-ndjson", List.of("\n")));

    assertThatThrownBy(
            () ->
                client.execStream(
                    "sb_1",
                    "t",
                    ExecRequest.of("true"),
                    ExecOutput.to(
                        OutputStream.nullOutputStream(), OutputStream.nullOutputStream())))
        .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.status()).isEqualTo(502));
  }

  @Test
  void logsAreReadRawWithTheSandboxTokenAndAnOptionalTail() {
    answers.add(new Answer(200, "text/plain; charset=utf-8", List.of("hello-logs\n", "{x")));
    assertThat(new String(client.logs("sb_1", "tok"), StandardCharsets.UTF_8))
        .isEqualTo("hello-logs\n{x");
    answers.add(new Answer(200, "text/plain; charset=utf-8", List.of("x")));
    assertThat(client.logs("sb_1", "tok", 64)).containsExactly('x');
    answer(404, "{\"error\":\"unknown sandbox\"}");
    assertThatThrownBy(() -> client.logs("sb_2", "wrong"))
        .isInstanceOfSatisfying(
            ApiException.class,
            e -> {
              assertThat(e.isNotFound()).isTrue();
              assertThat(e.getMessage()).contains("unknown sandbox");
            });
    assertThat(seen)
        .extracting(Seen::method, Seen::uri, Seen::authorization)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("GET", "/v1/sandboxes/sb_1/logs", "Bearer tok"),
            org.assertj.core.groups.Tuple.tuple(
                "GET", "/v1/sandboxes/sb_1/logs?tail_bytes=64", "Bearer tok"),
            org.assertj.core.groups.Tuple.tuple("GET", "/v1/sandboxes/sb_2/logs", "Bearer wrong"));
  }

  @Test
  void followedLogsAreAStreamUntilTheAnswerEndsAndAnUnknownSandboxIsNotFound() throws Exception {
    answers.add(new Answer(200, "text/plain; charset=utf-8", List.of("kept\n", "new\n")));
    try (var in = client.followLogs("sb_1", "tok")) {
      assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("kept\nnew\n");
    }
    answer(404, "{\"error\":\"unknown sandbox\"}");
    assertThatThrownBy(() -> client.followLogs("sb_2", "wrong"))
        .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.isNotFound()).isTrue());
    assertThat(seen)
        .extracting(Seen::uri, Seen::authorization)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(
                "/v1/sandboxes/sb_1/logs?follow=true", "Bearer tok"),
            org.assertj.core.groups.Tuple.tuple(
                "/v1/sandboxes/sb_2/logs?follow=true", "Bearer wrong"));
  }

  @Test
  void filesAreReadListedAndWritten() {
    answers.add(new Answer(200, "application/octet-stream", List.of("content")));
    answer(200, "{\"path\":\"/w\",\"entries\":[{\"name\":\"a\",\"type\":\"file\",\"size\":7}]}");
    answers.add(new Answer(204, "application/json", List.of()));

    assertThat(new String(client.readFile("sb_1", "t", "/w/a"), StandardCharsets.UTF_8))
        .isEqualTo("content");
    assertThat(client.listFiles("sb_1", "t", "/w")).containsExactly(new FileEntry("a", "file", 7));
    client.writeFile("sb_1", "t", "/w/b c", "new".getBytes(StandardCharsets.UTF_8));
    assertThat(last())
        .isEqualTo(new Seen("PUT", "/v1/sandboxes/sb_1/files?path=%2Fw%2Fb+c", "Bearer t", "new"));
  }
}
