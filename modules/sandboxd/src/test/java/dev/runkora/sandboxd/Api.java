package dev.runkora.sandboxd;

import dev.runkora.common.json.JsonText;
import jakarta.json.JsonObject;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;

/**
 * A bare HTTP client for tests (on {@link HttpURLConnection}, so that the daemon's module needs
 * nothing more): sends exactly the bytes a test gives and reads the status and body.
 */
final class Api {

  record Reply(int status, String body) {
    JsonObject json() {
      return JsonText.parseObject(body);
    }

    String error() {
      return json().getString("error");
    }
  }

  private final String base;

  Api(int port) {
    this.base = "http://127.0.0.1:" + port;
  }

  String base() {
    return base;
  }

  Reply send(String method, String path, String token, String body) {
    return sendBytes(
        method, path, token, body == null ? null : body.getBytes(StandardCharsets.UTF_8));
  }

  Reply sendBytes(String method, String path, String token, byte[] body) {
    try {
      HttpURLConnection connection = open(method, path, token);
      if (body != null) {
        connection.setDoOutput(true);
        if (body.length > (1 << 20)) {
          // Streaming mode cannot read a 401's body back; small bodies stay buffered.
          connection.setFixedLengthStreamingMode(body.length);
        }
        try (var out = connection.getOutputStream()) {
          out.write(body);
        }
      }
      int status = connection.getResponseCode();
      InputStream in = status >= 400 ? connection.getErrorStream() : connection.getInputStream();
      String text = in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8);
      connection.disconnect();
      return new Reply(status, text);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Opens a connection for a test that streams its own body or reads a streamed answer. */
  HttpURLConnection open(String method, String path, String token) throws IOException {
    var connection = (HttpURLConnection) URI.create(base + path).toURL().openConnection();
    connection.setRequestMethod(method);
    connection.setConnectTimeout(5000);
    connection.setReadTimeout(60000);
    if (token != null) {
      connection.setRequestProperty("Authorization", "Bearer " + token);
    }
    return connection;
  }

  /** Releases every live claim (root acts by id), so that a test leaves no sandbox behind. */
  static void releaseAll(Api api, String root) {
    var rows = api.get("/v1/sandboxes", root).json().getJsonArray("sandboxes");
    for (var row : rows) {
      api.post("/v1/sandboxes/" + row.asJsonObject().getString("id") + "/release", root, null);
    }
  }

  Reply get(String path, String token) {
    return send("GET", path, token, null);
  }

  Reply post(String path, String token, String body) {
    return send("POST", path, token, body);
  }
}
