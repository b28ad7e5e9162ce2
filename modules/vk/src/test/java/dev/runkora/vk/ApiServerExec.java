package dev.runkora.vk;

import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.auth.ApiKeyAuth;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * {@code kubectl exec} and {@code kubectl attach} as kubectl does them: a WebSocket ({@code
 * v5.channel.k8s.io}) to the API server's {@code pods/exec} or {@code pods/attach}, which the API
 * server carries to the kubelet API over SPDY/3.1.
 */
final class ApiServerExec {
  /** What an exec produced. */
  record Result(String stdout, String stderr, String status) {}

  private ApiServerExec() {}

  static Result exec(ApiClient client, String ns, String pod, byte[] stdin, String... command)
      throws Exception {
    StringBuilder query = new StringBuilder("stdout=true&stderr=true");
    if (stdin != null) {
      query.append("&stdin=true");
    }
    for (String c : command) {
      query.append("&command=").append(URLEncoder.encode(c, StandardCharsets.UTF_8));
    }
    return stream(client, ns, pod, "exec", query.toString(), stdin, null, () -> null);
  }

  /** {@code kubectl attach -i}: sends {@code stdin}, closes it and waits for the end. */
  static Result attach(ApiClient client, String ns, String pod, byte[] stdin) throws Exception {
    return stream(
        client, ns, pod, "attach", "stdin=true&stdout=true&stderr=true", stdin, null, () -> null);
  }

  /**
   * {@code kubectl attach} without stdin: runs {@code attached} once connected, then reads stdout
   * until {@code until} accepts it (or 30 s pass) and leaves.
   */
  static Result attachOutput(
      ApiClient client, String ns, String pod, Predicate<String> until, Callable<?> attached)
      throws Exception {
    return stream(client, ns, pod, "attach", "stdout=true&stderr=true", null, until, attached);
  }

  private static Result stream(
      ApiClient client,
      String ns,
      String pod,
      String subresource,
      String query,
      byte[] stdin,
      Predicate<String> until,
      Callable<?> connected)
      throws Exception {
    InputStream ca = client.getSslCaCert();
    ca.reset();
    KeyStore trust = KeyStore.getInstance("PKCS12");
    trust.load(null, null);
    int i = 0;
    for (var cert : CertificateFactory.getInstance("X.509").generateCertificates(ca)) {
      trust.setCertificateEntry("ca" + i++, cert);
    }
    TrustManagerFactory tmf =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(trust);
    SSLContext ssl = SSLContext.getInstance("TLS");
    ssl.init(null, tmf.getTrustManagers(), null);
    String base = client.getBasePath().replaceFirst("^https", "wss");
    URI uri =
        URI.create(
            base + "/api/v1/namespaces/" + ns + "/pods/" + pod + "/" + subresource + "?" + query);
    String token = ((ApiKeyAuth) client.getAuthentication("BearerToken")).getApiKey();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    ByteArrayOutputStream status = new ByteArrayOutputStream();
    CompletableFuture<Void> closed = new CompletableFuture<>();
    WebSocket.Listener listener =
        new WebSocket.Listener() {
          int channel = -1;

          @Override
          public CompletionStage<?> onBinary(WebSocket ws, ByteBuffer data, boolean last) {
            if (channel < 0 && data.hasRemaining()) {
              channel = data.get() & 0xff;
            }
            byte[] bytes = new byte[data.remaining()];
            data.get(bytes);
            switch (channel) {
              case 1 -> out.writeBytes(bytes);
              case 2 -> err.writeBytes(bytes);
              case 3 -> status.writeBytes(bytes);
              default -> {}
            }
            if (last) {
              channel = -1;
            }
            ws.request(1);
            return null;
          }

          @Override
          public CompletionStage<?> onClose(WebSocket ws, int code, String reason) {
            closed.complete(null);
            return null;
          }

          @Override
          public void onError(WebSocket ws, Throwable error) {
            closed.completeExceptionally(error);
          }
        };
    try (HttpClient http =
        HttpClient.newBuilder().sslContext(ssl).connectTimeout(Duration.ofSeconds(10)).build()) {
      WebSocket ws =
          http.newWebSocketBuilder()
              .header("Authorization", "Bearer " + token)
              .subprotocols("v5.channel.k8s.io")
              .buildAsync(uri, listener)
              .get(20, TimeUnit.SECONDS);
      if (stdin != null) {
        byte[] frame = new byte[stdin.length + 1];
        frame[0] = 0;
        System.arraycopy(stdin, 0, frame, 1, stdin.length);
        ws.sendBinary(ByteBuffer.wrap(frame), true).get(10, TimeUnit.SECONDS);
        // v5: close stdin (channel 255, then the stream to close).
        ws.sendBinary(ByteBuffer.wrap(new byte[] {(byte) 255, 0}), true).get(10, TimeUnit.SECONDS);
      }
      connected.call();
      if (until == null) {
        closed.get(30, TimeUnit.SECONDS);
      } else {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!until.test(out.toString(StandardCharsets.UTF_8))
            && !closed.isDone()
            && System.nanoTime() < deadline) {
          Thread.sleep(50);
        }
        ws.abort();
      }
    }
    return new Result(
        out.toString(StandardCharsets.UTF_8),
        err.toString(StandardCharsets.UTF_8),
        status.toString(StandardCharsets.UTF_8));
  }
}
