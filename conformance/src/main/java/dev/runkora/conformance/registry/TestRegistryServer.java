package dev.runkora.conformance.registry;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;

/**
 * A hand-written stand-in for a registry's wire, for the cases a real registry will not produce: it
 * serves an OCI layout made by {@link TestLayout} (corrupted blobs included, byte for byte) over
 * the distribution v2 API on 127.0.0.1, for any repository name. It can ask for a bearer token (a
 * {@code WWW-Authenticate} challenge answered by its own token endpoint) and counts requests.
 */
public final class TestRegistryServer implements AutoCloseable {
  private static final Pattern MANIFEST = Pattern.compile("/v2/(.+)/manifests/([^/]+)");
  private static final Pattern BLOB = Pattern.compile("/v2/(.+)/blobs/(sha256:[a-f0-9]{64})");
  private static final String TOKEN = "kora-test-token";

  private final HttpServer server;
  private final Path layout;
  private final boolean bearer;
  private final boolean redirectBlobs;
  private final AtomicInteger storageRequests = new AtomicInteger();
  private final AtomicInteger storageRequestsWithAuthorization = new AtomicInteger();
  private final AtomicInteger blobRequests = new AtomicInteger();
  private final AtomicInteger tokenRequests = new AtomicInteger();
  private volatile String lastScope = "";

  private TestRegistryServer(Path layout, boolean bearer, boolean redirectBlobs)
      throws IOException {
    this.layout = layout;
    this.bearer = bearer;
    this.redirectBlobs = redirectBlobs;
    this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/", this::handle);
    server.setExecutor(Executors.newFixedThreadPool(4));
    server.start();
  }

  /** Serves a layout anonymously. */
  public static TestRegistryServer anonymous(Path layout) throws IOException {
    return new TestRegistryServer(layout, false, false);
  }

  /** Serves a layout only to clients that present the token of its own token endpoint. */
  public static TestRegistryServer withBearerToken(Path layout) throws IOException {
    return new TestRegistryServer(layout, true, false);
  }

  /**
   * Serves a layout with a bearer token, and answers blob requests with a redirect to a storage
   * path on the same server that needs no token (as registries redirect to object storage).
   */
  public static TestRegistryServer withBearerTokenAndBlobRedirects(Path layout) throws IOException {
    return new TestRegistryServer(layout, true, true);
  }

  /** Returns how many requests reached the storage path that blobs are redirected to. */
  public int storageRequests() {
    return storageRequests.get();
  }

  /** Returns how many of those carried an {@code Authorization} header (a leaked token). */
  public int storageRequestsWithAuthorization() {
    return storageRequestsWithAuthorization.get();
  }

  /** Returns {@code 127.0.0.1:<port>}, the registry host of references to it. */
  public String host() {
    return "127.0.0.1:" + server.getAddress().getPort();
  }

  /** Returns how many blob requests were answered. */
  public int blobRequests() {
    return blobRequests.get();
  }

  /** Returns how many tokens were handed out. */
  public int tokenRequests() {
    return tokenRequests.get();
  }

  /** Returns the scope the last token was asked for. */
  public String lastScope() {
    return lastScope;
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      var path = exchange.getRequestURI().getPath();
      if (path.equals("/token")) {
        tokenRequests.incrementAndGet();
        var query = exchange.getRequestURI().getQuery();
        lastScope = query == null ? "" : query;
        send(
            exchange,
            200,
            "application/json",
            ("{\"token\":\"" + TOKEN + "\"}").getBytes(StandardCharsets.UTF_8));
        return;
      }
      if (path.startsWith("/storage/")) {
        storageRequests.incrementAndGet();
        if (exchange.getRequestHeaders().containsKey("Authorization")) {
          storageRequestsWithAuthorization.incrementAndGet();
        }
        sendFile(
            exchange, blobPath(path.substring("/storage/".length())), "application/octet-stream");
        return;
      }
      if (bearer
          && !("Bearer " + TOKEN).equals(exchange.getRequestHeaders().getFirst("Authorization"))) {
        exchange
            .getResponseHeaders()
            .add(
                "WWW-Authenticate",
                "Bearer realm=\"http://" + host() + "/token\",service=\"kora-test\"");
        send(
            exchange,
            401,
            "application/json",
            "{\"errors\":[{\"code\":\"UNAUTHORIZED\"}]}".getBytes(StandardCharsets.UTF_8));
        return;
      }
      if (path.equals("/v2/") || path.equals("/v2")) {
        send(exchange, 200, "application/json", "{}".getBytes(StandardCharsets.UTF_8));
        return;
      }
      var blob = BLOB.matcher(path);
      if (blob.matches()) {
        blobRequests.incrementAndGet();
        if (redirectBlobs) {
          // another authority for the same server, as object storage is another host
          exchange
              .getResponseHeaders()
              .add(
                  "Location",
                  "http://localhost:"
                      + server.getAddress().getPort()
                      + "/storage/"
                      + blob.group(2));
          send(exchange, 307, "text/plain", new byte[0]);
          return;
        }
        sendFile(exchange, blobPath(blob.group(2)), "application/octet-stream");
        return;
      }
      var manifest = MANIFEST.matcher(path);
      if (manifest.matches()) {
        var reference = manifest.group(2);
        var digest = reference.startsWith("sha256:") ? reference : digestOfTag(reference);
        if (digest == null) {
          send(
              exchange,
              404,
              "application/json",
              "{\"errors\":[{\"code\":\"MANIFEST_UNKNOWN\"}]}".getBytes(StandardCharsets.UTF_8));
          return;
        }
        var file = blobPath(digest);
        var content = Files.exists(file) ? Files.readString(file) : "";
        var type =
            content.contains("\"manifests\"")
                ? "application/vnd.oci.image.index.v1+json"
                : "application/vnd.oci.image.manifest.v1+json";
        exchange.getResponseHeaders().add("Docker-Content-Digest", digest);
        sendFile(exchange, file, type);
        return;
      }
      send(exchange, 404, "text/plain", new byte[0]);
    }
  }

  private String digestOfTag(String tag) throws IOException {
    var index = Files.readString(layout.resolve("index.json"));
    var marker = "\"org.opencontainers.image.ref.name\":\"" + tag + "\"";
    int at = index.indexOf(marker);
    if (at < 0) {
      return null;
    }
    int digestAt = index.lastIndexOf("\"digest\":\"", at);
    return index.substring(digestAt + 10, digestAt + 10 + 71);
  }

  private Path blobPath(String digest) {
    return layout.resolve("blobs").resolve("sha256").resolve(digest.substring(7));
  }

  private static void sendFile(HttpExchange exchange, Path file, String type) throws IOException {
    if (!Files.exists(file)) {
      send(
          exchange,
          404,
          "application/json",
          "{\"errors\":[{\"code\":\"BLOB_UNKNOWN\"}]}".getBytes(StandardCharsets.UTF_8));
      return;
    }
    send(exchange, 200, type, Files.readAllBytes(file));
  }

  private static void send(HttpExchange exchange, int status, String type, byte[] body)
      throws IOException {
    exchange.getResponseHeaders().add("Content-Type", type);
    exchange.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
    if (body.length > 0) {
      exchange.getResponseBody().write(body);
    }
  }

  @Override
  public void close() {
    server.stop(0);
    ((java.util.concurrent.ExecutorService) server.getExecutor()).shutdownNow();
  }
}
