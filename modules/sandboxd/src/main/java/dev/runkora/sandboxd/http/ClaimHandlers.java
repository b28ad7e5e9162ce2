package dev.runkora.sandboxd.http;

import dev.runkora.common.json.JsonFields;
import dev.runkora.common.json.JsonText;
import dev.runkora.common.json.Rfc3339;
import dev.runkora.sandboxd.engine.ApiException;
import dev.runkora.sandboxd.engine.Claim;
import dev.runkora.sandboxd.engine.ClaimRequest;
import dev.runkora.sandboxd.engine.PoolKey;
import dev.runkora.spi.core.KoraException;
import dev.runkora.spi.runtime.RuntimeCapability;
import dev.runkora.spi.runtime.SandboxStats;
import io.helidon.http.Status;
import io.helidon.webserver.http.HttpRouting;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/** Claim, release, renew, listings, stats and owner. */
final class ClaimHandlers {

  private static final Pattern ENV_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,127}");
  private static final long DEFAULT_WORKSPACE_BYTES = 10L << 30;
  private static final int MAX_MOUNTS = 16;

  private final Node node;

  ClaimHandlers(Node node) {
    this.node = node;
  }

  void register(HttpRouting.Builder routing) {
    routing
        .post("/v1/claim", this::claim)
        .get("/v1/sandboxes", this::list)
        .get("/v1/sandboxes/{id}", this::get)
        .post("/v1/sandboxes/{id}/release", this::release)
        .post("/v1/sandboxes/{id}/renew", this::renew)
        .get("/v1/sandboxes/{id}/stats", this::stats)
        .get("/v1/sandboxes/{id}/owner", this::owner);
  }

  private void claim(ServerRequest request, ServerResponse response) {
    var caller = node.auth().node(request);
    var body = Http.jsonBody(request);
    var claimRequest = parseClaim(body);
    try {
      Claim claim = node.claims().claim(claimRequest, caller.tenant(), caller.root());
      // Id, token and deadline need no escaping; the answer is small enough to write by hand.
      var answer =
          new StringBuilder(160)
              .append("{\"id\":\"")
              .append(claim.id())
              .append("\",\"token\":\"")
              .append(claim.token())
              .append("\",\"deadline\":\"")
              .append(Rfc3339.format(claim.deadline()))
              .append('"');
      node.ownerAddr()
          .get()
          .ifPresent(addr -> JsonText.quote(answer.append(",\"owner_addr\":"), addr));
      Http.json(response, 200, answer.append('}').toString());
    } finally {
      // The refill the claim started begins once the answer is out (a miss asked for it already).
      node.pools().refillAfterHit(claimRequest.key());
    }
  }

  static ClaimRequest parseClaim(JsonFields body) {
    if (!body.objects("volumes").isEmpty()) {
      throw ApiException.badRequest("volumes are not supported by this node");
    }
    var key =
        PoolKey.of(body.string("template", ""), body.string("net", ""), body.string("size", ""));
    long ttl = body.longValue("ttl_seconds", 0);
    if (ttl < 0) {
      throw ApiException.badRequest("ttl_seconds must not be negative");
    }
    var env = new LinkedHashMap<String, String>();
    for (var entry : body.stringMap("env").entrySet()) {
      if (!ENV_NAME.matcher(entry.getKey()).matches()) {
        throw ApiException.badRequest("env name \"" + entry.getKey() + "\" is not valid");
      }
      if (entry.getValue().indexOf('\0') >= 0) {
        throw ApiException.badRequest("env value of " + entry.getKey() + " holds a NUL byte");
      }
      env.put(entry.getKey(), entry.getValue());
    }
    var mounts = new ArrayList<ClaimRequest.MountRequest>();
    var paths = new HashSet<String>();
    for (JsonFields m : body.objects("mounts")) {
      m.requireOnly(java.util.Set.of("host_path", "workspace", "size_bytes", "path", "mode"));
      String host = m.string("host_path", "");
      String workspace = m.string("workspace", "");
      if (host.isEmpty() == workspace.isEmpty()) {
        throw ApiException.badRequest("a mount has either host_path or workspace");
      }
      if (!host.isEmpty() && (!host.startsWith("/") || hasDotDot(host))) {
        throw ApiException.badRequest("mount host_path must be absolute without ..");
      }
      String path = m.requiredString("path");
      if (!path.startsWith("/") || path.equals("/") || hasDotDot(path) || path.indexOf('\0') >= 0) {
        throw ApiException.badRequest("mount path must be absolute, not / and without ..");
      }
      if (!paths.add(path)) {
        throw ApiException.badRequest("mount path " + path + " is used twice");
      }
      String mode = m.string("mode", "rw");
      if (!mode.equals("ro") && !mode.equals("rw")) {
        throw ApiException.badRequest("mount mode must be ro or rw");
      }
      long size = m.longValue("size_bytes", DEFAULT_WORKSPACE_BYTES);
      if (size <= 0) {
        throw ApiException.badRequest("mount size_bytes must be positive");
      }
      mounts.add(new ClaimRequest.MountRequest(host, workspace, size, path, mode.equals("ro")));
    }
    if (mounts.size() > MAX_MOUNTS) {
      throw ApiException.badRequest("at most " + MAX_MOUNTS + " mounts");
    }
    return new ClaimRequest(key, ttl, body.string("claim_ref", ""), env, mounts);
  }

  private static boolean hasDotDot(String path) {
    for (String part : path.split("/")) {
      if (part.equals("..") || part.equals(".")) {
        return true;
      }
    }
    return false;
  }

  private void list(ServerRequest request, ServerResponse response) {
    var caller = node.auth().node(request);
    String ref = request.query().first("claim_ref").orElse("");
    List<Claim> rows = new ArrayList<>(node.store().all());
    rows.sort(Comparator.comparing(Claim::claimedAt).thenComparing(Claim::id));
    var array = JsonText.array();
    for (Claim claim : rows) {
      if (!caller.root() && !claim.tenant().equals(caller.tenant())) {
        continue;
      }
      if (!ref.isEmpty() && !claim.claimRef().equals(ref)) {
        continue;
      }
      array.add(InfoJson.row(claim, false));
    }
    Http.json(response, 200, JsonText.object().add("sandboxes", array).build());
  }

  private void get(ServerRequest request, ServerResponse response) {
    var caller = node.auth().operator(request);
    var claim = node.store().get(id(request)).orElseThrow(ApiException::unknownSandbox);
    Http.json(response, 200, InfoJson.row(claim, caller.operatorToken()));
  }

  private void release(ServerRequest request, ServerResponse response) {
    var claim = node.auth().sandbox(request, id(request), node.store(), true);
    node.claims().release(claim);
    response.status(Status.NO_CONTENT_204);
    response.send();
  }

  private void renew(ServerRequest request, ServerResponse response) {
    var claim = node.auth().sandbox(request, id(request), node.store(), true);
    var body = Http.jsonBody(request);
    long ttl = body.longValue("ttl_seconds", 0);
    var renewed = node.claims().renew(claim, ttl);
    Http.json(
        response,
        200,
        JsonText.object().add("deadline", Rfc3339.format(renewed.deadline())).build());
  }

  private void stats(ServerRequest request, ServerResponse response) {
    node.auth().operator(request);
    var claim = node.store().get(id(request)).orElseThrow(ApiException::unknownSandbox);
    var runtime = node.provisioner().runtime();
    SandboxStats stats = SandboxStats.unmeasured(Instant.now());
    if (runtime.capabilities().contains(RuntimeCapability.STATS)) {
      try {
        stats = runtime.stats(claim.vmName());
      } catch (KoraException e) {
        stats = SandboxStats.unmeasured(Instant.now());
      }
    }
    var tier = claim.key().tier();
    var body =
        JsonText.object()
            .add("id", claim.id())
            .add("cpu_count", tier.cpus())
            .add("mem_total_bytes", tier.memoryBytes())
            .add("mem_used_bytes", stats.memoryBytes())
            .add("mem_used_measured", stats.measured())
            .add("hibernated", false)
            .add("measured_at", Rfc3339.format(stats.measuredAt()))
            .add("cpu_usage_measured", stats.measured());
    // kora's addition: the CPU time is sent only when the runtime read it (the runtime's one
    // measured flag covers all its figures), so a reader never takes an unread 0 for idle.
    if (stats.measured()) {
      body.add("cpu_usage_ns", stats.cpuNanos());
    }
    Http.json(response, 200, body.build());
  }

  private void owner(ServerRequest request, ServerResponse response) {
    node.auth().sandbox(request, id(request), node.store(), false);
    var addr = node.ownerAddr().get();
    if (addr.isEmpty()) {
      throw new ApiException(404, "not owned here");
    }
    Http.json(response, 200, JsonText.object().add("owner_addr", addr.get()).build());
  }

  static String id(ServerRequest request) {
    return request.path().pathParameters().get("id");
  }

  static Map<String, String> mergedEnv(Claim claim, Map<String, String> requested) {
    var env = new LinkedHashMap<>(claim.env());
    env.putAll(requested);
    return env;
  }
}
