package dev.runkora.sandboxd.http;

import dev.runkora.common.json.JsonText;
import dev.runkora.sandboxd.engine.ApiException;
import dev.runkora.sandboxd.engine.BufferedExec;
import dev.runkora.spi.runtime.ExecProcess;
import dev.runkora.spi.runtime.ExecRequest;
import io.helidon.http.HeaderNames;
import io.helidon.http.Status;
import io.helidon.webserver.http.HttpRouting;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

/**
 * kora's file endpoints: {@code GET /v1/sandboxes/{id}/files?path=} reads a file (or lists a
 * directory as JSON) and {@code PUT} writes one from the request body. They run {@code sh} inside
 * the sandbox, so they work on every runtime and see exactly what the sandbox sees.
 */
final class FileHandlers {

  private static final int MISSING = 44;
  private static final int DENIED = 13;
  private static final Duration LIMIT = Duration.ofMinutes(10);

  private static final String READ =
      """
      p="$1"
      if [ -d "$p" ]; then
        cd "$p" 2>/dev/null || exit 13
        echo D
        for f in * .[!.]* ..?*; do
          if [ -L "./$f" ]; then t=symlink; s=0
          elif [ -d "./$f" ]; then t=dir; s=0
          elif [ -f "./$f" ]; then t=file; s=$(stat -c %s "./$f" 2>/dev/null || echo 0)
          elif [ -e "./$f" ]; then t=other; s=0
          else continue; fi
          printf '%s %s %s\\n' "$t" "$s" "$f"
        done
      elif [ -e "$p" ]; then
        [ -r "$p" ] || exit 13
        echo F
        exec cat "$p"
      else
        exit 44
      fi
      """;

  private static final String WRITE =
      """
      d=$(dirname "$1")
      [ -d "$d" ] || exit 44
      cat > "$1" || exit 13
      """;

  private final Node node;

  FileHandlers(Node node) {
    this.node = node;
  }

  void register(HttpRouting.Builder routing) {
    routing
        .get("/v1/sandboxes/{id}/files", this::read)
        .put("/v1/sandboxes/{id}/files", this::write);
  }

  private static String path(ServerRequest request) {
    String path = request.query().first("path").orElse("");
    if (!path.startsWith("/") || path.indexOf('\0') >= 0 || path.indexOf('\n') >= 0) {
      throw ApiException.badRequest("path must be an absolute path");
    }
    return path;
  }

  private ExecProcess run(String vm, String script, String path) {
    return BufferedExec.start(
        node.provisioner().runtime(),
        vm,
        new ExecRequest(List.of("sh", "-c", script, "sh", path), "", Map.of(), LIMIT));
  }

  private void read(ServerRequest request, ServerResponse response) throws Exception {
    var claim = node.auth().sandbox(request, ClaimHandlers.id(request), node.store(), false);
    String path = path(request);
    try (var process = run(claim.vmName(), READ, path)) {
      process.stdin().close();
      Thread.ofVirtual().start(() -> discard(process.stderr()));
      InputStream out = process.stdout();
      int kind = out.read();
      int newline = out.read();
      if (kind < 0 || newline != '\n') {
        OptionalInt exit = process.waitFor(Duration.ofSeconds(30));
        throw failure(exit.orElse(-1), path);
      }
      if (kind == 'F') {
        response.status(Status.OK_200);
        response.header(HeaderNames.CONTENT_TYPE, "application/octet-stream");
        try (OutputStream to = response.outputStream()) {
          out.transferTo(to);
        } catch (IOException | RuntimeException e) {
          process.kill();
        }
        return;
      }
      byte[] listing = out.readNBytes((int) BufferedExec.OUTPUT_CAP);
      process.waitFor(Duration.ofSeconds(30));
      var entries = JsonText.array();
      for (String line : new String(listing, StandardCharsets.UTF_8).split("\n")) {
        String[] parts = line.split(" ", 3);
        if (parts.length == 3) {
          entries.add(
              JsonText.object()
                  .add("name", parts[2])
                  .add("type", parts[0])
                  .add("size", parseSize(parts[1])));
        }
      }
      Http.json(response, 200, JsonText.object().add("path", path).add("entries", entries).build());
    }
  }

  private void write(ServerRequest request, ServerResponse response) throws Exception {
    var claim = node.auth().sandbox(request, ClaimHandlers.id(request), node.store(), false);
    String path = path(request);
    try (var process = run(claim.vmName(), WRITE, path)) {
      Thread.ofVirtual().start(() -> discard(process.stdout()));
      var err = new ByteArrayOutputStream();
      Thread errReader =
          Thread.ofVirtual()
              .start(
                  () -> {
                    try (var in = process.stderr()) {
                      err.write(in.readNBytes(4096));
                    } catch (IOException e) {
                      // Best effort.
                    }
                  });
      try (OutputStream to = process.stdin()) {
        if (request.content().hasEntity()) {
          request.content().inputStream().transferTo(to);
        }
      } catch (IOException e) {
        // The script ended early (a missing directory); its exit code says why.
      }
      OptionalInt exit = process.waitFor(LIMIT);
      errReader.join();
      if (exit.isEmpty() || exit.getAsInt() != 0) {
        throw failure(exit.orElse(-1), path);
      }
      response.status(Status.NO_CONTENT_204);
      response.send();
    }
  }

  private static ApiException failure(int exit, String path) {
    return switch (exit) {
      case MISSING -> new ApiException(404, "no such file or directory: " + path);
      case DENIED -> new ApiException(400, "permission denied: " + path);
      default -> new ApiException(502, "file operation failed (exit " + exit + "): " + path);
    };
  }

  private static long parseSize(String text) {
    try {
      return Long.parseLong(text.trim());
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  private static void discard(InputStream in) {
    try (in) {
      in.transferTo(OutputStream.nullOutputStream());
    } catch (IOException e) {
      // Nothing to keep.
    }
  }
}
