package dev.runkora.sandboxd.http;

import dev.runkora.common.json.JsonFields;
import dev.runkora.common.json.JsonFormatError;
import dev.runkora.common.json.JsonText;
import dev.runkora.sandboxd.engine.ApiException;
import io.helidon.http.HeaderNames;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import jakarta.json.JsonObject;
import jakarta.json.JsonStructure;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Optional;

/** Request bodies with the 1 MiB cap, and JSON answers. */
final class Http {

  /** The cap on request bodies. */
  static final int BODY_CAP = 1 << 20;

  private Http() {}

  /** How much of an oversized body is read and dropped, so the client gets the answer cleanly. */
  private static final long DRAIN_CAP = 16L << 20;

  /** Reads a whole body of at most 1 MiB; empty when there is none. */
  static Optional<byte[]> body(ServerRequest request) {
    if (!request.content().hasEntity()) {
      return Optional.empty();
    }
    var length = request.headers().contentLength();
    try (InputStream in = request.content().inputStream()) {
      if (length.isPresent() && length.getAsLong() > BODY_CAP) {
        drain(in);
        throw new ApiException(400, "invalid request body");
      }
      byte[] bytes = in.readNBytes(BODY_CAP + 1);
      if (bytes.length > BODY_CAP) {
        drain(in);
        throw new ApiException(400, "invalid request body");
      }
      return bytes.length == 0 ? Optional.empty() : Optional.of(bytes);
    } catch (IOException | UncheckedIOException e) {
      throw new ApiException(400, "invalid request body");
    }
  }

  /** Reads and drops what is left of a body, up to a cap (beyond it the connection is closed). */
  private static void drain(InputStream in) throws IOException {
    long skipped = 0;
    byte[] buffer = new byte[65536];
    int n;
    while (skipped < DRAIN_CAP && (n = in.read(buffer)) > 0) {
      skipped += n;
    }
  }

  /** Reads a body that must be a JSON object; an absent body reads as {@code {}}. */
  static JsonFields jsonBody(ServerRequest request) {
    var bytes = body(request);
    if (bytes.isEmpty()) {
      return JsonFields.of(JsonValueHolder.EMPTY);
    }
    try {
      return JsonFields.of(JsonText.parseObject(bytes.get()));
    } catch (JsonFormatError e) {
      throw new ApiException(400, "invalid request body: " + e.getMessage());
    }
  }

  /** Sends a JSON answer. */
  static void json(ServerResponse response, int status, JsonStructure body) {
    response.status(Status.create(status));
    response.header(HeaderNames.CONTENT_TYPE, "application/json");
    response.send(JsonText.compact(body));
  }

  /** Sends a JSON answer already encoded. */
  static void json(ServerResponse response, int status, String json) {
    response.status(Status.create(status));
    response.header(HeaderNames.CONTENT_TYPE, "application/json");
    response.send(json.getBytes(java.nio.charset.StandardCharsets.UTF_8));
  }

  /** Sends {@code {"error": message}}. */
  static void error(ServerResponse response, int status, String message) {
    json(response, status, JsonText.object().add("error", message).build());
  }

  private static final class JsonValueHolder {
    static final JsonObject EMPTY = JsonText.object().build();
  }
}
