package dev.runkora.vk;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsExchange;
import com.sun.net.httpserver.HttpsParameters;
import com.sun.net.httpserver.HttpsServer;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.JSON;
import io.kubernetes.client.openapi.apis.AuthenticationV1Api;
import io.kubernetes.client.openapi.apis.AuthorizationV1Api;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodList;
import io.kubernetes.client.openapi.models.V1ResourceAttributes;
import io.kubernetes.client.openapi.models.V1SubjectAccessReview;
import io.kubernetes.client.openapi.models.V1SubjectAccessReviewSpec;
import io.kubernetes.client.openapi.models.V1TokenReview;
import io.kubernetes.client.openapi.models.V1TokenReviewSpec;
import io.kubernetes.client.openapi.models.V1TokenReviewStatus;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.logging.Logger;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.TrustManagerFactory;
import javax.security.auth.x500.X500Principal;

/**
 * The kubelet API on {@code --listen-addr}, TLS only: {@code /healthz}, {@code /pods}, {@code
 * /containerLogs}, and answers for the streaming routes. Callers are authenticated like a kubelet
 * does it: a client certificate issued by the client CA (the API server presents one with {@code
 * --kubelet-client-certificate}), or a bearer token checked by a TokenReview; then authorized by a
 * SubjectAccessReview on {@code nodes/proxy} (or {@code nodes/log}) of this node.
 */
final class KubeletServer implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(KubeletServer.class.getName());

  /** An authenticated caller. */
  record Caller(String user, List<String> groups) {}

  private final VkConfig config;
  private final SandboxPods pods;
  private final ApiClient client;
  private final HttpsServer server;
  private final ExecutorService executor =
      Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("vk-kubelet-", 0).factory());
  private final Map<String, Caller> tokenCache = new ConcurrentHashMap<>();
  private final boolean clientCertificates;

  KubeletServer(
      VkConfig config, SandboxPods pods, ApiClient client, List<X509Certificate> clientCas)
      throws IOException, GeneralSecurityException {
    this.config = config;
    this.pods = pods;
    this.client = client;
    KeyStore keys = Certificates.serving(config);
    KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    kmf.init(keys, Certificates.PASSWORD);
    TrustManagerFactory tmf = null;
    if (!clientCas.isEmpty()) {
      KeyStore trust = KeyStore.getInstance("PKCS12");
      trust.load(null, null);
      int i = 0;
      for (X509Certificate ca : clientCas) {
        trust.setCertificateEntry("ca" + i++, ca);
      }
      tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(trust);
    }
    this.clientCertificates = tmf != null;
    SSLContext ssl = SSLContext.getInstance("TLS");
    ssl.init(kmf.getKeyManagers(), tmf == null ? null : tmf.getTrustManagers(), null);
    InetSocketAddress address =
        config.listenHost().isEmpty()
            ? new InetSocketAddress(config.listenPort())
            : new InetSocketAddress(config.listenHost(), config.listenPort());
    server = HttpsServer.create(address, 128);
    boolean want = clientCertificates;
    server.setHttpsConfigurator(
        new HttpsConfigurator(ssl) {
          @Override
          public void configure(HttpsParameters params) {
            SSLParameters p = ssl.getDefaultSSLParameters();
            p.setProtocols(new String[] {"TLSv1.3", "TLSv1.2"});
            p.setWantClientAuth(want);
            params.setSSLParameters(p);
          }
        });
    server.setExecutor(executor);
    server.createContext("/", this::handle);
  }

  int port() {
    return server.getAddress().getPort();
  }

  void start() {
    server.start();
    LOG.info("kubelet API on " + server.getAddress() + " (TLS)");
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      String path = exchange.getRequestURI().getPath();
      if (path.equals("/healthz")) {
        send(exchange, 200, "text/plain", "ok");
        return;
      }
      String subresource = path.startsWith("/containerLogs/") ? "log" : "proxy";
      Optional<Caller> caller = authenticate(exchange);
      if (caller.isEmpty()) {
        send(exchange, 401, "text/plain", "Unauthorized");
        return;
      }
      if (!authorized(caller.get(), exchange.getRequestMethod(), subresource)) {
        send(
            exchange,
            403,
            "text/plain",
            "Forbidden (user="
                + caller.get().user()
                + ", verb="
                + verb(exchange.getRequestMethod())
                + ", resource=nodes, subresource="
                + subresource
                + ")");
        return;
      }
      if (path.equals("/pods") || path.equals("/pods/")) {
        List<V1Pod> list = new ArrayList<>();
        for (V1Pod p : pods.pods()) {
          V1Pod copy = JSON.deserialize(JSON.serialize(p), V1Pod.class);
          pods.status(SandboxPods.key(p)).ifPresent(copy::setStatus);
          list.add(copy);
        }
        V1PodList body =
            new V1PodList().apiVersion("v1").kind("PodList").metadata(null).items(list);
        send(exchange, 200, "application/json", JSON.serialize(body));
        return;
      }
      String[] parts = path.split("/");
      if (path.startsWith("/containerLogs/") && parts.length >= 5) {
        String key = parts[2] + "/" + parts[3];
        if (pods.pod(key).isEmpty()) {
          send(exchange, 404, "text/plain", "pod " + key + " is not on this node");
          return;
        }
        // sandboxd keeps no container log: a sandbox's output belongs to the commands run in it.
        send(exchange, 200, "text/plain", "");
        return;
      }
      if (path.startsWith("/exec/")
          || path.startsWith("/attach/")
          || path.startsWith("/portForward/")
          || path.startsWith("/run/")) {
        send(
            exchange,
            501,
            "text/plain",
            "streaming is not implemented on vk-sandbox yet; use the sandboxd exec API");
        return;
      }
      if (path.equals("/stats/summary")) {
        send(
            exchange,
            200,
            "application/json",
            JSON.serialize(
                Map.of("node", Map.of("nodeName", config.nodeName()), "pods", List.of())));
        return;
      }
      send(exchange, 404, "text/plain", "404 page not found");
    } catch (RuntimeException e) {
      LOG.warning("kubelet API " + exchange.getRequestURI() + ": " + e);
    }
  }

  private Optional<Caller> authenticate(HttpExchange exchange) {
    if (config.anonymousAuth()) {
      return Optional.of(new Caller("system:anonymous", List.of("system:unauthenticated")));
    }
    if (clientCertificates && exchange instanceof HttpsExchange https) {
      try {
        var certs = https.getSSLSession().getPeerCertificates();
        if (certs.length > 0 && certs[0] instanceof X509Certificate cert) {
          return Optional.of(fromCertificate(cert));
        }
      } catch (SSLPeerUnverifiedException e) {
        // No client certificate: try a token.
      }
    }
    String auth = exchange.getRequestHeaders().getFirst("Authorization");
    if (auth != null && auth.regionMatches(true, 0, "Bearer ", 0, 7)) {
      String token = auth.substring(7).strip();
      Caller cached = tokenCache.get(token);
      if (cached != null) {
        return Optional.of(cached);
      }
      try {
        V1TokenReview review =
            new AuthenticationV1Api(client)
                .createTokenReview(new V1TokenReview().spec(new V1TokenReviewSpec().token(token)))
                .execute();
        V1TokenReviewStatus s = review.getStatus();
        if (s != null && Boolean.TRUE.equals(s.getAuthenticated()) && s.getUser() != null) {
          Caller c =
              new Caller(
                  s.getUser().getUsername(),
                  s.getUser().getGroups() == null ? List.of() : s.getUser().getGroups());
          if (tokenCache.size() > 1000) {
            tokenCache.clear();
          }
          tokenCache.put(token, c);
          return Optional.of(c);
        }
      } catch (ApiException e) {
        LOG.warning("TokenReview failed: " + e.getCode());
      }
    }
    return Optional.empty();
  }

  static Caller fromCertificate(X509Certificate cert) {
    String dn = cert.getSubjectX500Principal().getName(X500Principal.RFC2253);
    String user = "";
    List<String> groups = new ArrayList<>();
    for (String rdn : dn.split("(?<!\\\\),")) {
      int eq = rdn.indexOf('=');
      if (eq < 0) {
        continue;
      }
      String type = rdn.substring(0, eq).strip();
      String value = rdn.substring(eq + 1).strip().replace("\\,", ",");
      if (type.equalsIgnoreCase("CN")) {
        user = value;
      } else if (type.equalsIgnoreCase("O")) {
        groups.add(value);
      }
    }
    return new Caller(user, groups);
  }

  private static String verb(String method) {
    return switch (method) {
      case "POST" -> "create";
      case "PUT" -> "update";
      case "PATCH" -> "patch";
      case "DELETE" -> "delete";
      default -> "get";
    };
  }

  private boolean authorized(Caller caller, String method, String subresource) {
    if (config.anonymousAuth() || caller.groups().contains("system:masters")) {
      return true;
    }
    try {
      V1SubjectAccessReview review =
          new AuthorizationV1Api(client)
              .createSubjectAccessReview(
                  new V1SubjectAccessReview()
                      .metadata(new V1ObjectMeta())
                      .spec(
                          new V1SubjectAccessReviewSpec()
                              .user(caller.user())
                              .groups(caller.groups())
                              .resourceAttributes(
                                  new V1ResourceAttributes()
                                      .verb(verb(method))
                                      .resource("nodes")
                                      .subresource(subresource)
                                      .name(config.nodeName()))))
              .execute();
      return review.getStatus() != null && Boolean.TRUE.equals(review.getStatus().getAllowed());
    } catch (ApiException e) {
      LOG.warning("SubjectAccessReview failed: " + e.getCode());
      return false;
    }
  }

  private static void send(HttpExchange exchange, int status, String type, String body)
      throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", type);
    exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
    if (bytes.length > 0) {
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(bytes);
      }
    }
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }
}
