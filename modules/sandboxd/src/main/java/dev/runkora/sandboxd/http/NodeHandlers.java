package dev.runkora.sandboxd.http;

import dev.runkora.sandboxd.engine.ApiException;
import dev.runkora.sandboxd.engine.Metrics;
import dev.runkora.sandboxd.engine.PoolKey;
import dev.runkora.sandboxd.engine.PoolsFile;
import io.helidon.http.HeaderNames;
import io.helidon.webserver.http.HttpRouting;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/** Node-level endpoints: info, pools, drain, health and metrics. */
final class NodeHandlers {

  private final Node node;

  NodeHandlers(Node node) {
    this.node = node;
  }

  void register(HttpRouting.Builder routing) {
    routing
        .get("/healthz", this::healthz)
        .get("/metrics", this::metrics)
        .get("/v1/info", this::info)
        .put("/v1/pools", this::pools)
        .post("/v1/drain", (req, res) -> drain(req, res, true))
        .delete("/v1/drain", (req, res) -> drain(req, res, false));
  }

  private void healthz(ServerRequest request, ServerResponse response) {
    response.header(HeaderNames.CONTENT_TYPE, "text/plain; charset=utf-8");
    response.send("ok".getBytes(StandardCharsets.UTF_8));
  }

  private void metrics(ServerRequest request, ServerResponse response) {
    node.auth().operator(request);
    var gauges =
        new Metrics.Gauges(
            node.store().size(),
            node.admission().draining(),
            node.admission().perTenant(),
            node.pools().view());
    response.header(HeaderNames.CONTENT_TYPE, "text/plain; version=0.0.4");
    response.send(node.metrics().render(gauges).getBytes(StandardCharsets.UTF_8));
  }

  private void info(ServerRequest request, ServerResponse response) {
    node.auth().operator(request);
    Http.json(response, 200, InfoJson.info(node));
  }

  private void pools(ServerRequest request, ServerResponse response) {
    node.auth().operator(request);
    var pools = PoolsFile.parse(Http.jsonBody(request));
    for (var pool : pools) {
      node.provisioner().checkServable(PoolKey.of(pool.template(), pool.net(), pool.size()));
    }
    try {
      node.poolsFile().save(pools);
    } catch (IOException e) {
      throw new ApiException(500, "cannot write pools.json: " + e.getMessage(), e);
    }
    node.pools().configure(pools);
    Http.json(response, 200, InfoJson.info(node));
  }

  private void drain(ServerRequest request, ServerResponse response, boolean on) {
    node.auth().operator(request);
    node.admission().draining(on);
    node.pools().draining(on);
    Http.json(response, 200, InfoJson.info(node));
  }
}
