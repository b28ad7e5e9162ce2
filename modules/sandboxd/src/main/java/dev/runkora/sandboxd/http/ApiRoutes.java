package dev.runkora.sandboxd.http;

import dev.runkora.common.json.JsonFormatError;
import dev.runkora.sandboxd.engine.ApiException;
import dev.runkora.spi.core.KoraException;
import io.helidon.webserver.http.HttpRouting;

/** The routes of the API; anything else (including the advanced endpoints) answers 404. */
public final class ApiRoutes {

  private static final System.Logger LOG = System.getLogger(ApiRoutes.class.getName());

  private ApiRoutes() {}

  /** Registers every route and the error mapping. */
  public static void register(HttpRouting.Builder routing, Node node) {
    new NodeHandlers(node).register(routing);
    new ClaimHandlers(node).register(routing);
    new ExecHandlers(node).register(routing);
    new FileHandlers(node).register(routing);
    routing.any((req, res) -> Http.error(res, 404, "not found"));
    routing.error(
        ApiException.class,
        (req, res, e) -> {
          if (e.status() >= 500) {
            LOG.log(System.Logger.Level.WARNING, req.prologue() + ": " + e.getMessage(), e);
          }
          send(res, e.status(), e.getMessage());
        });
    routing.error(
        JsonFormatError.class,
        (req, res, e) -> send(res, 400, "invalid request body: " + e.getMessage()));
    routing.error(
        KoraException.class,
        (req, res, e) -> {
          int status =
              switch (e.kind()) {
                case INVALID_ARGUMENT -> 400;
                case NOT_FOUND -> 404;
                case ALREADY_EXISTS -> 409;
                case RESOURCE_EXHAUSTED -> 429;
                case UNSUPPORTED -> 501;
                case UNAVAILABLE -> 503;
                case INTERNAL -> 500;
              };
          if (status >= 500) {
            LOG.log(System.Logger.Level.WARNING, req.prologue() + ": " + e.getMessage(), e);
          }
          send(res, status, e.getMessage());
        });
    routing.error(
        RuntimeException.class,
        (req, res, e) -> {
          LOG.log(System.Logger.Level.ERROR, req.prologue() + " failed", e);
          send(res, 500, "internal error");
        });
  }

  private static void send(
      io.helidon.webserver.http.ServerResponse res, int status, String message) {
    if (res.isSent()) {
      return;
    }
    Http.error(res, status, message);
  }
}
