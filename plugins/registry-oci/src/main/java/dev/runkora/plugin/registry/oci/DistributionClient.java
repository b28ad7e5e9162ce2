package dev.runkora.plugin.registry.oci;

import dev.runkora.plugin.registry.oci.content.Digests;
import dev.runkora.plugin.registry.oci.content.MediaTypes;
import dev.runkora.spi.core.ErrorKind;
import dev.runkora.spi.core.KoraException;
import jakarta.json.Json;
import jakarta.json.JsonException;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.URI;
import java.net.URLEncoder;
import java.net.UnknownHostException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * Speaks the OCI distribution v2 API to one registry host at a time: manifests and blobs, with
 * anonymous access or a bearer token from the registry's {@code WWW-Authenticate} challenge.
 * Thread-safe; tokens are cached per registry and scope and never logged.
 */
final class DistributionClient implements AutoCloseable {
  private static final Duration TIMEOUT = Duration.ofSeconds(30);
  private static final int MAX_REDIRECTS = 5;
  private static final Pattern CHALLENGE_PARAMETER =
      Pattern.compile("([A-Za-z]+)\\s*=\\s*\"([^\"]*)\"");

  private final HttpClient http;
  private final Set<String> plainHttpHosts;
  private final Map<String, String> tokens = new ConcurrentHashMap<>();

  DistributionClient(Set<String> plainHttpHosts) {
    this.plainHttpHosts = Set.copyOf(plainHttpHosts);
    this.http =
        HttpClient.newBuilder()
            .connectTimeout(Duration.ofSeconds(10))
            // Redirects are followed by hand: a blob's redirect to a storage host must not carry
            // the registry's token.
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();
  }

  /**
   * A fetched manifest.
   *
   * @param content its bytes
   * @param mediaType the {@code Content-Type} the registry sent
   * @param digest the digest of the bytes
   */
  record Fetched(byte[] content, String mediaType, String digest) {}

  /** Fetches a manifest by tag or digest from a registry host and checks its digest. */
  Fetched manifest(String host, String repository, String reference) {
    var response =
        send(
            host,
            repository,
            "/manifests/" + reference,
            String.join(", ", MediaTypes.MANIFESTS),
            HttpResponse.BodyHandlers.ofByteArray());
    byte[] content = response.body();
    String digest = Digests.of(content);
    if (reference.startsWith("sha256:") && !reference.equals(digest)) {
      throw KoraException.invalidArgument(
          "manifest %s@%s from %s does not match its digest: its content hashes to %s",
          repository, reference, host, digest);
    }
    var stated = response.headers().firstValue("Docker-Content-Digest");
    if (stated.isPresent() && stated.get().startsWith("sha256:") && !stated.get().equals(digest)) {
      throw KoraException.invalidArgument(
          "manifest %s:%s from %s does not match the digest the registry states (%s)",
          repository, reference, host, stated.get());
    }
    var type = response.headers().firstValue("Content-Type").orElse("");
    int semicolon = type.indexOf(';');
    return new Fetched(
        content, semicolon < 0 ? type.trim() : type.substring(0, semicolon).trim(), digest);
  }

  /** Opens a blob's content; the caller checks its digest while reading. */
  InputStream blob(String host, String repository, String digest) {
    return send(
            host, repository, "/blobs/" + digest, "*/*", HttpResponse.BodyHandlers.ofInputStream())
        .body();
  }

  private <T> HttpResponse<T> send(
      String host,
      String repository,
      String path,
      String accept,
      HttpResponse.BodyHandler<T> body) {
    var uri = URI.create(baseUrl(host) + "/v2/" + repository + path);
    String scope = "repository:" + repository + ":pull";
    String tokenKey = host + " " + scope;
    try {
      var response = http.send(request(uri, accept, tokens.get(tokenKey)), body);
      if (response.statusCode() == 401) {
        drain(response);
        var challenge = response.headers().firstValue("WWW-Authenticate").orElse("");
        var token = fetchToken(host, challenge, scope);
        tokens.put(tokenKey, token);
        response = http.send(request(uri, accept, token), body);
      }
      for (int hops = 0; isRedirect(response.statusCode()) && hops < MAX_REDIRECTS; hops++) {
        var location = response.headers().firstValue("Location");
        if (location.isEmpty()) {
          break;
        }
        drain(response);
        var target = response.uri().resolve(location.get());
        if (!"https".equals(target.getScheme()) && !isPlainHttpAllowed(target.getAuthority())) {
          throw KoraException.unavailable(
              "registry %s redirected to plain HTTP on another host; refused", host);
        }
        boolean sameHost = target.getAuthority().equals(uri.getAuthority());
        response = http.send(request(target, accept, sameHost ? tokens.get(tokenKey) : null), body);
      }
      int status = response.statusCode();
      if (status == 200) {
        return response;
      }
      drain(response);
      String what = repository + path.replace("/manifests/", ":").replace("/blobs/", "@");
      throw switch (status) {
        case 404 -> KoraException.notFound("%s does not exist on registry %s", what, host);
        case 401, 403 ->
            KoraException.notFound(
                "%s on registry %s does not exist or needs credentials (HTTP %d)",
                what, host, status);
        case 429 -> KoraException.unavailable("registry %s is rate-limiting (HTTP 429)", host);
        default ->
            status >= 500
                ? KoraException.unavailable(
                    "registry %s answered HTTP %d for %s", host, status, what)
                : KoraException.invalidArgument(
                    "registry %s refused %s with HTTP %d", host, what, status);
      };
    } catch (IOException e) {
      throw new KoraException(
          ErrorKind.UNAVAILABLE,
          "registry %s cannot be reached: %s".formatted(host, e.getMessage()),
          e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw KoraException.unavailable("interrupted while talking to registry %s", host);
    }
  }

  private String fetchToken(String host, String challenge, String defaultScope)
      throws IOException, InterruptedException {
    if (!challenge.regionMatches(true, 0, "Bearer ", 0, 7)) {
      throw KoraException.notFound(
          "registry %s asks for credentials (%s), and kora pulls anonymously",
          host, challenge.isBlank() ? "no challenge" : challenge.split(" ")[0]);
    }
    var parameters = new LinkedHashMap<String, String>();
    var matcher = CHALLENGE_PARAMETER.matcher(challenge.substring(7));
    while (matcher.find()) {
      parameters.put(matcher.group(1).toLowerCase(java.util.Locale.ROOT), matcher.group(2));
    }
    var realm = parameters.get("realm");
    if (realm == null || realm.isBlank()) {
      throw KoraException.unavailable("registry %s sent a bearer challenge without a realm", host);
    }
    var query = new StringBuilder();
    if (parameters.containsKey("service")) {
      query.append("service=").append(encode(parameters.get("service")));
    }
    String scope = parameters.getOrDefault("scope", defaultScope);
    query.append(query.isEmpty() ? "" : "&").append("scope=").append(encode(scope));
    var tokenUri = URI.create(realm + (realm.contains("?") ? "&" : "?") + query);
    if (!"https".equals(tokenUri.getScheme()) && !isPlainHttpAllowed(tokenUri.getAuthority())) {
      throw KoraException.unavailable(
          "registry %s names a token endpoint over plain HTTP on another host; refused", host);
    }
    var response =
        http.send(
            HttpRequest.newBuilder(tokenUri).timeout(TIMEOUT).GET().build(),
            HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw KoraException.unavailable(
          "the token endpoint of registry %s answered HTTP %d", host, response.statusCode());
    }
    try (var reader = Json.createReader(new java.io.StringReader(response.body()))) {
      var json = reader.readObject();
      var token = json.getString("token", json.getString("access_token", ""));
      if (token.isEmpty()) {
        throw KoraException.unavailable("the token endpoint of registry %s sent no token", host);
      }
      return token;
    } catch (JsonException | ClassCastException e) {
      throw KoraException.unavailable("the token endpoint of registry %s sent no JSON", host);
    }
  }

  private static boolean isRedirect(int status) {
    return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
  }

  private static HttpRequest request(URI uri, String accept, String token) {
    var builder = HttpRequest.newBuilder(uri).timeout(TIMEOUT).header("Accept", accept).GET();
    if ("http".equals(uri.getScheme())) {
      builder.version(HttpClient.Version.HTTP_1_1); // no h2c upgrade round on plain HTTP
    }
    if (token != null) {
      builder.header("Authorization", "Bearer " + token);
    }
    return builder.build();
  }

  private String baseUrl(String host) {
    String authority = host.equals("docker.io") ? "registry-1.docker.io" : host;
    return (isPlainHttpAllowed(host) ? "http://" : "https://") + authority;
  }

  /** Plain HTTP is for loopback hosts and the hosts the settings list. */
  boolean isPlainHttpAllowed(String host) {
    return plainHttpHosts.contains(host) || isLoopback(host);
  }

  /** Returns whether a registry host (with an optional port) names this machine's loopback. */
  static boolean isLoopback(String host) {
    String name = hostName(host);
    if (name.equalsIgnoreCase("localhost")) {
      return true;
    }
    if (!name.matches("[0-9.]+") && !name.contains(":")) {
      return false; // never resolve names here: resolve() must do no I/O
    }
    try {
      return InetAddress.getByName(name).isLoopbackAddress();
    } catch (UnknownHostException e) {
      return false;
    }
  }

  /** Returns the host part of {@code host[:port]} or {@code [v6]:port}. */
  static String hostName(String host) {
    if (host.startsWith("[")) {
      int close = host.indexOf(']');
      return close < 0 ? host : host.substring(1, close);
    }
    int colon = host.lastIndexOf(':');
    return colon < 0 ? host : host.substring(0, colon);
  }

  private static String encode(String value) {
    return URLEncoder.encode(value, StandardCharsets.UTF_8);
  }

  private static void drain(HttpResponse<?> response) {
    if (response.body() instanceof InputStream in) {
      try {
        in.close();
      } catch (IOException e) {
        // the connection is dropped instead of reused
      }
    }
  }

  @Override
  public void close() {
    http.close();
  }
}
