package dev.runkora.sandboxd.http;

import dev.runkora.sandboxd.SandboxdConfig;
import dev.runkora.sandboxd.engine.ApiException;
import dev.runkora.sandboxd.engine.Claim;
import dev.runkora.sandboxd.engine.ClaimStore;
import io.helidon.http.HeaderNames;
import io.helidon.webserver.http.ServerRequest;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.List;
import java.util.Optional;

/**
 * Authentication and authorization as reference §2 has them: root, tenant and per-sandbox bearer
 * tokens, all compared in constant time; open mode when there is neither a root token nor a tenant.
 */
public final class Auth {

  /**
   * Who called a node-level endpoint.
   *
   * @param root whether the caller holds the root token (or the node is in open mode)
   * @param tenant the tenant's name, or empty
   * @param operatorToken whether the caller presented the configured root token itself
   */
  public record Caller(boolean root, String tenant, boolean operatorToken) {}

  private record TenantToken(String name, byte[] token) {}

  private final byte[] rootToken;
  private final List<TenantToken> tenants;

  /** Creates the checks for a root token ("" for none) and the configured tenants. */
  public Auth(String rootToken, List<SandboxdConfig.Tenant> tenants) {
    this.rootToken = rootToken.isEmpty() ? null : rootToken.getBytes(StandardCharsets.UTF_8);
    this.tenants =
        tenants.stream()
            .map(t -> new TenantToken(t.name(), t.token().getBytes(StandardCharsets.UTF_8)))
            .toList();
  }

  /** Returns whether the node runs without any token. */
  public boolean openMode() {
    return rootToken == null && tenants.isEmpty();
  }

  /**
   * Authenticates a node-level call.
   *
   * @throws ApiException 401 {@code invalid api token} for a missing or unknown token
   */
  public Caller node(ServerRequest request) {
    var bearer = bearer(request);
    if (openMode()) {
      return new Caller(true, "", false);
    }
    if (bearer.isEmpty()) {
      throw new ApiException(401, "invalid api token");
    }
    byte[] presented = bearer.get();
    if (rootToken != null && MessageDigest.isEqual(presented, rootToken)) {
      return new Caller(true, "", true);
    }
    String match = null;
    for (TenantToken tenant : tenants) {
      if (MessageDigest.isEqual(presented, tenant.token()) && match == null) {
        match = tenant.name();
      }
    }
    if (match != null) {
      return new Caller(false, match, false);
    }
    throw new ApiException(401, "invalid api token");
  }

  /**
   * Authenticates a root-only call.
   *
   * @throws ApiException 401 for a bad token, 403 {@code operator token required} for a tenant
   */
  public Caller operator(ServerRequest request) {
    Caller caller = node(request);
    if (!caller.root()) {
      throw new ApiException(403, "operator token required");
    }
    return caller;
  }

  /**
   * Authorizes a sandbox-scoped call: the bearer must be the sandbox's token, or (where {@code
   * rootByIdAllowed}) the configured root token.
   *
   * @throws ApiException 401 without a bearer; 404 {@code unknown sandbox} for a wrong token, a
   *     tenant token or an unknown id alike
   */
  public Claim sandbox(
      ServerRequest request, String id, ClaimStore store, boolean rootByIdAllowed) {
    var bearer = bearer(request);
    if (bearer.isEmpty()) {
      throw new ApiException(401, "missing bearer token");
    }
    byte[] presented = bearer.get();
    var claim = store.get(id);
    byte[] expected =
        claim.map(c -> c.token().getBytes(StandardCharsets.UTF_8)).orElse(new byte[32]);
    boolean tokenMatches = MessageDigest.isEqual(presented, expected) && claim.isPresent();
    boolean rootMatches =
        rootByIdAllowed && rootToken != null && MessageDigest.isEqual(presented, rootToken);
    if (claim.isPresent() && (tokenMatches || rootMatches)) {
      return claim.get();
    }
    throw ApiException.unknownSandbox();
  }

  private static Optional<byte[]> bearer(ServerRequest request) {
    var header = request.headers().first(HeaderNames.AUTHORIZATION);
    if (header.isEmpty()) {
      return Optional.empty();
    }
    String value = header.get().trim();
    if (value.length() < 7 || !value.regionMatches(true, 0, "Bearer ", 0, 7)) {
      return Optional.empty();
    }
    String token = value.substring(7).trim();
    return token.isEmpty() ? Optional.empty() : Optional.of(token.getBytes(StandardCharsets.UTF_8));
  }
}
