package dev.runkora.api;

import jakarta.json.JsonObject;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * A client of the sandboxd v1 HTTP API, on {@link HttpClient}.
 *
 * <p>Thread-safe; one instance is meant to be shared and reuses its connections. Node-level calls
 * send the node token given to the builder (root or tenant; none in open mode). Sandbox-scoped
 * calls (release, renew, exec, owner) take the token to send as a parameter: the sandbox's own
 * token, or the root token where the contract lets the operator act by id.
 *
 * <p>Every failure is an {@link ApiException}: an HTTP error with its status and the server's
 * {@code error} message, or status 0 when no daemon answered. Tokens never appear in messages.
 */
public final class SandboxdClient implements AutoCloseable {
  private static final Pattern ID = Pattern.compile("[A-Za-z0-9_.-]{1,128}");
  private static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(5);
  private static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(30);
  private static final Duration DEFAULT_CLAIM_TIMEOUT = Duration.ofMinutes(10);

  private final URI base;
  private final String nodeToken;
  private final Duration requestTimeout;
  private final Duration claimTimeout;
  private final HttpClient http;

  private SandboxdClient(Builder b) {
    this.base = b.base;
    this.nodeToken = b.token;
    this.requestTimeout = b.requestTimeout;
    this.claimTimeout = b.claimTimeout;
    this.http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(b.connectTimeout)
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();
  }

  /**
   * A builder for a client of the daemon at {@code address}.
   *
   * @param address {@code http://host:port} (a path prefix is kept), or a bare {@code host:port}
   */
  public static Builder builder(String address) {
    return new Builder(normalize(address));
  }

  /** The base URI requests are sent to, for messages. */
  public URI address() {
    return base;
  }

  // ---- node-level ----

  /** {@code GET /healthz}. Returns normally when the daemon answers 200. */
  public void healthz() {
    send(request("/healthz", "").GET(), requestTimeout);
  }

  /** Whether a daemon answers {@code GET /healthz} with 200. */
  public boolean isHealthy() {
    try {
      healthz();
      return true;
    } catch (ApiException e) {
      return false;
    }
  }

  /**
   * {@code POST /v1/claim}. Blocks for as long as a cold claim takes. A redirect (mesh) is returned
   * as such, not followed.
   */
  public ClaimResponse claim(ClaimRequest claim) {
    String body = Wire.write(claim.toJson());
    return ClaimResponse.fromJson(
        json(send(request("/v1/claim", nodeToken).POST(ofString(body)), claimTimeout)));
  }

  /** {@code GET /v1/sandboxes}: every live claim the node token may see. */
  public List<SandboxRow> list() {
    return list("");
  }

  /** {@code GET /v1/sandboxes?claim_ref=}: the claims with exactly that reference. */
  public List<SandboxRow> list(String claimRef) {
    String path = "/v1/sandboxes";
    if (claimRef != null && !claimRef.isEmpty()) {
      path += "?claim_ref=" + URLEncoder.encode(claimRef, StandardCharsets.UTF_8);
    }
    JsonObject o = json(send(request(path, nodeToken).GET(), requestTimeout));
    if (!o.containsKey("sandboxes")) {
      // A listing that cannot be read must never pass for an empty one.
      throw new ApiException(200, "listing answer has no sandboxes field");
    }
    return Wire.objects(o, "sandboxes").stream().map(SandboxRow::fromJson).toList();
  }

  /** {@code GET /v1/sandboxes/{id}} (root): the row, with the sandbox token. */
  public SandboxRow get(String id) {
    return SandboxRow.fromJson(
        json(send(request(sandboxPath(id, ""), nodeToken).GET(), requestTimeout)));
  }

  /** {@code GET /v1/sandboxes/{id}/stats} (root). */
  public SandboxStats stats(String id) {
    return SandboxStats.fromJson(
        json(send(request(sandboxPath(id, "/stats"), nodeToken).GET(), requestTimeout)));
  }

  /** {@code GET /v1/info} (root). */
  public Info info() {
    return Info.fromJson(json(send(request("/v1/info", nodeToken).GET(), requestTimeout)));
  }

  /** {@code PUT /v1/pools} (root): replaces the node's pool set; answers the fresh info. */
  public Info putPools(List<PoolSpec> pools) {
    String body = Wire.write(PoolSpec.body(pools));
    return Info.fromJson(
        json(send(request("/v1/pools", nodeToken).PUT(ofString(body)), requestTimeout)));
  }

  /** {@code POST /v1/drain} (root): cordons the node. */
  public Info drain() {
    return Info.fromJson(
        json(send(request("/v1/drain", nodeToken).POST(ofString("")), requestTimeout)));
  }

  /** {@code DELETE /v1/drain} (root): lifts the cordon. */
  public Info undrain() {
    return Info.fromJson(json(send(request("/v1/drain", nodeToken).DELETE(), requestTimeout)));
  }

  /** {@code GET /metrics} (root): the Prometheus text. */
  public String metrics() {
    return send(request("/metrics", nodeToken).GET(), requestTimeout);
  }

  // ---- sandbox-scoped ----

  /** {@code POST /v1/sandboxes/{id}/release}. A 404 is an {@link ApiException}. */
  public void release(String id, String token) {
    send(request(sandboxPath(id, "/release"), token).POST(ofString("")), requestTimeout);
  }

  /**
   * Releases a sandbox and treats "already gone" (404) as success, as the contract tells callers
   * to.
   *
   * @return true if this call released it, false if it was gone already
   */
  public boolean releaseIfPresent(String id, String token) {
    try {
      release(id, token);
      return true;
    } catch (ApiException e) {
      if (e.isNotFound()) {
        return false;
      }
      throw e;
    }
  }

  /** {@code POST /v1/sandboxes/{id}/renew}: the granted deadline. 0 asks for the default. */
  public Instant renew(String id, String token, long ttlSeconds) {
    String body = Wire.write(Wire.object().add("ttl_seconds", ttlSeconds).build());
    JsonObject o =
        json(send(request(sandboxPath(id, "/renew"), token).POST(ofString(body)), requestTimeout));
    return Wire.parseInstant(Wire.requiredString(o, "deadline"), "deadline");
  }

  /** {@code GET /v1/sandboxes/{id}/owner} (sandbox token): the owning node's address. */
  public String owner(String id, String token) {
    return Wire.requiredString(
        json(send(request(sandboxPath(id, "/owner"), token).GET(), requestTimeout)), "owner_addr");
  }

  /** {@code POST /v1/sandboxes/{id}/exec}: runs a command and answers its buffered output. */
  public ExecResult exec(String id, String token, ExecRequest exec) {
    String body = Wire.write(exec.toJson());
    return ExecResult.fromJson(
        json(
            send(
                request(sandboxPath(id, "/exec"), token).POST(ofString(body)), execTimeout(exec))));
  }

  /**
   * kora's streaming exec, {@code POST /v1/sandboxes/{id}/exec/stream}, with stdin closed: output
   * arrives while the command runs and is handed to {@code output}.
   *
   * @return the command's exit code
   */
  public int execStream(String id, String token, ExecRequest exec, ExecOutput output) {
    return execStream(id, token, exec, null, output);
  }

  /**
   * kora's streaming exec with stdin. The body is the exec request on one line, then {@code stdin}
   * (copied until its end, then the command's stdin is closed); the answer is newline-delimited
   * JSON frames {@code {"stream": "stdout"|"stderr", "data": base64}} and a last frame {@code
   * {"exit_code": n}} (with {@code "timed_out": true} when the timeout ended the command, reported
   * through {@link ExecOutput#timedOut()}). Blank lines are heartbeats.
   *
   * @param stdin the command's standard input; null for none
   * @return the command's exit code
   */
  public int execStream(
      String id, String token, ExecRequest exec, InputStream stdin, ExecOutput output) {
    byte[] head = (Wire.write(exec.toJson()) + "\n").getBytes(StandardCharsets.UTF_8);
    HttpRequest.BodyPublisher body =
        stdin == null
            ? HttpRequest.BodyPublishers.ofByteArray(head)
            : HttpRequest.BodyPublishers.ofInputStream(
                () ->
                    new java.io.SequenceInputStream(new java.io.ByteArrayInputStream(head), stdin));
    HttpRequest req =
        withTimeout(request(sandboxPath(id, "/exec/stream"), token).POST(body), execTimeout(exec))
            .build();
    HttpResponse<InputStream> response = call(req, HttpResponse.BodyHandlers.ofInputStream());
    try (InputStream in = response.body()) {
      if (response.statusCode() / 100 != 2) {
        throw error(response.statusCode(), new String(in.readAllBytes(), StandardCharsets.UTF_8));
      }
      BufferedReader lines = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
      String line;
      while ((line = lines.readLine()) != null) {
        if (line.isBlank()) {
          continue;
        }
        Optional<Integer> exit = ExecFrames.dispatch(Wire.parseObject(line), output);
        if (exit.isPresent()) {
          return exit.get();
        }
      }
      throw new ApiException(502, "exec stream ended without an exit code");
    } catch (IOException e) {
      throw new ApiException("exec stream from " + base + " broke: " + e.getMessage(), e);
    }
  }

  /**
   * kora's logs extension, {@code GET /v1/sandboxes/{id}/logs} (sandbox token or root): what the
   * sandbox's commands wrote to stdout and stderr, raw, as much as the daemon keeps (the last MiB).
   *
   * @throws ApiException 404 for an unknown sandbox or a wrong token
   */
  public byte[] logs(String id, String token) {
    return logs(id, token, -1);
  }

  /**
   * kora's logs extension with {@code ?tail_bytes=}: at most the last {@code tailBytes} bytes of
   * the sandbox's output; a negative value asks for all that is kept.
   */
  public byte[] logs(String id, String token, long tailBytes) {
    String query = tailBytes < 0 ? "" : "?tail_bytes=" + tailBytes;
    HttpResponse<byte[]> r =
        call(
            withTimeout(request(sandboxPath(id, "/logs" + query), token).GET(), requestTimeout)
                .build(),
            HttpResponse.BodyHandlers.ofByteArray());
    if (r.statusCode() / 100 != 2) {
      throw error(r.statusCode(), new String(r.body(), StandardCharsets.UTF_8));
    }
    return r.body();
  }

  /**
   * kora's logs extension with {@code ?follow=true}: the kept log, then new output as the sandbox's
   * commands write it. The stream ends when the sandbox is released; closing it (or interrupting
   * the thread that reads it) leaves. No request timeout applies.
   *
   * @throws ApiException 404 for an unknown sandbox or a wrong token
   */
  public InputStream followLogs(String id, String token) {
    HttpResponse<InputStream> r =
        call(
            request(sandboxPath(id, "/logs?follow=true"), token).GET().build(),
            HttpResponse.BodyHandlers.ofInputStream());
    if (r.statusCode() / 100 != 2) {
      try (InputStream in = r.body()) {
        throw error(r.statusCode(), new String(in.readAllBytes(), StandardCharsets.UTF_8));
      } catch (IOException e) {
        throw new ApiException("log stream from " + base + " broke: " + e.getMessage(), e);
      }
    }
    return r.body();
  }

  /**
   * kora's files extension: the content of a file in the sandbox ({@code GET
   * /v1/sandboxes/{id}/files?path=}).
   *
   * @throws ApiException 404 when it does not exist, 400 when it is a directory
   */
  public byte[] readFile(String id, String token, String path) {
    HttpResponse<byte[]> r = files(id, token, path);
    if (isJson(r)) {
      throw new ApiException(400, path + " is a directory");
    }
    return r.body();
  }

  /**
   * kora's files extension: the entries of a directory in the sandbox.
   *
   * @throws ApiException 404 when it does not exist, 400 when it is not a directory
   */
  public List<FileEntry> listFiles(String id, String token, String path) {
    HttpResponse<byte[]> r = files(id, token, path);
    if (!isJson(r)) {
      throw new ApiException(400, path + " is not a directory");
    }
    return Wire.objects(json(new String(r.body(), StandardCharsets.UTF_8)), "entries").stream()
        .map(FileEntry::fromJson)
        .toList();
  }

  /** kora's files extension: replaces a file in the sandbox (its directory must exist). */
  public void writeFile(String id, String token, String path, byte[] content) {
    send(
        request(filesPath(id, path), token)
            .PUT(HttpRequest.BodyPublishers.ofByteArray(content))
            .setHeader("Content-Type", "application/octet-stream"),
        requestTimeout);
  }

  private HttpResponse<byte[]> files(String id, String token, String path) {
    HttpResponse<byte[]> r =
        call(
            withTimeout(request(filesPath(id, path), token).GET(), requestTimeout).build(),
            HttpResponse.BodyHandlers.ofByteArray());
    if (r.statusCode() / 100 != 2) {
      throw error(r.statusCode(), new String(r.body(), StandardCharsets.UTF_8));
    }
    return r;
  }

  private static boolean isJson(HttpResponse<?> r) {
    return r.headers().firstValue("Content-Type").orElse("").startsWith("application/json");
  }

  private static String filesPath(String id, String path) {
    if (path == null || !path.startsWith("/")) {
      throw new IllegalArgumentException("a sandbox path must be absolute: " + path);
    }
    return sandboxPath(id, "/files?path=" + URLEncoder.encode(path, StandardCharsets.UTF_8));
  }

  @Override
  public void close() {
    http.close();
  }

  // ---- plumbing ----

  private Duration execTimeout(ExecRequest exec) {
    // The daemon enforces timeout_seconds itself; the margin lets its 504 arrive first.
    return exec.timeoutSeconds() > 0 ? Duration.ofSeconds(exec.timeoutSeconds() + 30) : null;
  }

  private static HttpRequest.BodyPublisher ofString(String body) {
    return HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8);
  }

  private HttpRequest.Builder request(String path, String token) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(base.resolve(base.getPath() + path.substring(1)))
            .header("Accept", "application/json");
    if (!path.startsWith("/healthz")) {
      b.header("Content-Type", "application/json");
    }
    if (token != null && !token.isEmpty()) {
      b.header("Authorization", "Bearer " + token);
    }
    return b;
  }

  private static HttpRequest.Builder withTimeout(HttpRequest.Builder b, Duration timeout) {
    return timeout == null ? b : b.timeout(timeout);
  }

  private String send(HttpRequest.Builder builder, Duration timeout) {
    HttpResponse<String> response =
        call(
            withTimeout(builder, timeout).build(),
            HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    if (response.statusCode() / 100 != 2) {
      throw error(response.statusCode(), response.body());
    }
    return response.body();
  }

  private <T> HttpResponse<T> call(HttpRequest request, HttpResponse.BodyHandler<T> handler) {
    try {
      return http.send(request, handler);
    } catch (HttpConnectTimeoutException e) {
      throw new ApiException("no answer from " + base + ": connect timed out", e);
    } catch (HttpTimeoutException e) {
      throw new ApiException("no answer from " + base + ": request timed out", e);
    } catch (ConnectException e) {
      throw new ApiException("no answer from " + base + ": connection refused", e);
    } catch (IOException e) {
      throw new ApiException("no answer from " + base + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ApiException("interrupted while waiting for " + base, e);
    }
  }

  private static JsonObject json(String body) {
    try {
      return Wire.parseObject(body);
    } catch (IllegalArgumentException e) {
      throw new ApiException(200, "answer is not a JSON object");
    }
  }

  static ApiException error(int status, String body) {
    String message = null;
    try {
      message = Wire.string(Wire.parseObject(body), "error");
    } catch (IllegalArgumentException e) {
      // Not JSON: fall through to the raw text.
    }
    if (message == null || message.isEmpty()) {
      String text = body == null ? "" : body.strip();
      message = text.isEmpty() ? "HTTP " + status : abbreviate(text);
    }
    return new ApiException(status, message);
  }

  private static String abbreviate(String text) {
    return text.length() <= 200 ? text : text.substring(0, 200) + "...";
  }

  private static String sandboxPath(String id, String suffix) {
    Objects.requireNonNull(id, "id");
    if (!ID.matcher(id).matches()) {
      throw new IllegalArgumentException("not a sandbox id: " + id);
    }
    return "/v1/sandboxes/" + id + suffix;
  }

  static URI normalize(String address) {
    Objects.requireNonNull(address, "address");
    String a = address.strip();
    if (a.isEmpty()) {
      throw new IllegalArgumentException("daemon address is empty");
    }
    if (!a.contains("://")) {
      a = "http://" + (a.startsWith(":") ? "127.0.0.1" + a : a);
    }
    URI uri;
    try {
      uri = URI.create(a.endsWith("/") ? a : a + "/");
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("not a daemon address: " + address, e);
    }
    if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme())) {
      throw new IllegalArgumentException("daemon address must be http or https: " + address);
    }
    if (uri.getHost() == null) {
      throw new IllegalArgumentException("daemon address has no host: " + address);
    }
    if (uri.getRawUserInfo() != null || uri.getRawQuery() != null) {
      throw new IllegalArgumentException("daemon address must not carry credentials or a query");
    }
    return uri;
  }

  /** Decodes the frames of the streaming exec. */
  static final class ExecFrames {
    private ExecFrames() {}

    /** Hands one frame to {@code output}; returns the exit code on the terminal frame. */
    static Optional<Integer> dispatch(JsonObject frame, ExecOutput output) {
      if (frame.containsKey("exit_code")) {
        if (Wire.bool(frame, "timed_out")) {
          output.timedOut();
        }
        return Optional.of((int) Wire.number(frame, "exit_code"));
      }
      if (frame.containsKey("error")) {
        long status = Wire.number(frame, "status");
        throw new ApiException(status == 0 ? 502 : (int) status, Wire.string(frame, "error"));
      }
      switch (Wire.string(frame, "stream")) {
        case "stdout" -> output.stdout(data(frame));
        case "stderr" -> output.stderr(data(frame));
        default -> {
          // Unknown frames are ignored, like unknown fields.
        }
      }
      return Optional.empty();
    }

    private static byte[] data(JsonObject frame) {
      try {
        return Base64.getDecoder().decode(Wire.string(frame, "data"));
      } catch (IllegalArgumentException e) {
        throw new ApiException(502, "exec stream frame holds no base64 data");
      }
    }
  }

  /** Configures a {@link SandboxdClient}. */
  public static final class Builder {
    private final URI base;
    private String token = "";
    private Duration connectTimeout = DEFAULT_CONNECT_TIMEOUT;
    private Duration requestTimeout = DEFAULT_REQUEST_TIMEOUT;
    private Duration claimTimeout = DEFAULT_CLAIM_TIMEOUT;

    private Builder(URI base) {
      this.base = base;
    }

    /** The node token (root or tenant) sent on node-level calls; empty for open mode. */
    public Builder token(String value) {
      this.token = value == null ? "" : value.strip();
      return this;
    }

    /** How long to wait for a connection (default 5 s). */
    public Builder connectTimeout(Duration value) {
      this.connectTimeout = Objects.requireNonNull(value);
      return this;
    }

    /** How long to wait for the answer of a control call (default 30 s). */
    public Builder requestTimeout(Duration value) {
      this.requestTimeout = Objects.requireNonNull(value);
      return this;
    }

    /** How long to wait for a claim, which may cold-boot (default 10 min). */
    public Builder claimTimeout(Duration value) {
      this.claimTimeout = Objects.requireNonNull(value);
      return this;
    }

    /** The client. */
    public SandboxdClient build() {
      return new SandboxdClient(this);
    }
  }
}
