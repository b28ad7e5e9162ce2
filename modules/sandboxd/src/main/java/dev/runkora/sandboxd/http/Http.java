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

  /** Reads a whole body of at most 1 MiB; empty when there is none. */
  static Optional<byte[]> body(ServerRequest request) {
    var length = request.headers().contentLength();
    if (length.isPresent() && length.getAsLong() > BODY_CAP) {
      throw new ApiException(400, "invalid request body");
    }
    if (!request.content().hasEntity()) {
      return Optional.empty();
    }
    try (InputStream in = request.content().inputStream()) {
      byte[] bytes = in.readNBytes(BODY_CAP + 1);
      if (bytes.length > BODY_CAP) {
        throw new ApiException(400, "invalid request body");
      }
      return bytes.length == 0 ? Optional.empty() : Optional.of(bytes);
    } catch (IOException | UncheckedIOException e) {
      throw new ApiException(400, "invalid request body");
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

  /** Sends {@code {"error": message}}. */
  static void error(ServerResponse response, int status, String message) {
    json(response, status, JsonText.object().add("error", message).build());
  }

  private static final class JsonValueHolder {
    static final JsonObject EMPTY = JsonText.object().build();
  }
}
