package dev.runkora.sandboxd.http;

import dev.runkora.common.json.JsonFields;
import dev.runkora.common.json.JsonFormatError;
import dev.runkora.common.json.JsonText;
import dev.runkora.sandboxd.engine.ApiException;
import dev.runkora.sandboxd.engine.BufferedExec;
import dev.runkora.sandboxd.engine.Claim;
import dev.runkora.sandboxd.engine.SandboxLogs;
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
import java.util.Base64;
import java.util.OptionalInt;
import java.util.Set;

/**
 * The buffered exec of the API, and kora's streaming exec: {@code POST
 * /v1/sandboxes/{id}/exec/stream} takes the exec request as the first line of the body and the rest
 * of the body as stdin, and answers newline-delimited JSON frames as output is produced. The output
 * of both is kept in the sandbox's log, {@code GET /v1/sandboxes/{id}/logs}.
 */
final class ExecHandlers {

  private static final Set<String> FIELDS = Set.of("argv", "cwd", "env", "timeout_seconds");
  private static final Duration HEARTBEAT = Duration.ofSeconds(2);

  private final Node node;

  ExecHandlers(Node node) {
    this.node = node;
  }

  void register(HttpRouting.Builder routing) {
    routing
        .post("/v1/sandboxes/{id}/exec", this::exec)
        .post("/v1/sandboxes/{id}/exec/stream", this::stream)
        .get("/v1/sandboxes/{id}/logs", this::logs);
  }

  static ExecRequest parse(JsonFields body, Claim claim) {
    body.requireOnly(FIELDS);
    var argv = body.strings("argv");
    if (argv.isEmpty()) {
      throw ApiException.badRequest("argv must not be empty");
    }
    long timeout = body.longValue("timeout_seconds", 0);
    if (timeout < 0) {
      throw ApiException.badRequest("timeout_seconds must not be negative");
    }
    String cwd = body.string("cwd", "");
    if (!cwd.isEmpty() && !cwd.startsWith("/")) {
      throw ApiException.badRequest("cwd must be an absolute path");
    }
    return new ExecRequest(
        argv,
        cwd,
        ClaimHandlers.mergedEnv(claim, body.stringMap("env")),
        Duration.ofSeconds(timeout));
  }

  private void exec(ServerRequest request, ServerResponse response) {
    var claim = node.auth().sandbox(request, ClaimHandlers.id(request), node.store(), false);
    var execRequest = parse(Http.jsonBody(request), claim);
    var result =
        BufferedExec.run(node.provisioner().runtime(), claim.vmName(), execRequest, log(claim));
    Http.json(
        response,
        200,
        JsonText.object()
            .add("exit_code", result.exitCode())
            .add("stdout", new String(result.stdout(), StandardCharsets.UTF_8))
            .add("stderr", new String(result.stderr(), StandardCharsets.UTF_8))
            .build());
  }

  /**
   * Returns the output log of a claimed sandbox. A release that raced the caller's token check may
   * have dropped it already; the log made again is then dropped and the sandbox is unknown.
   */
  private SandboxLogs.Log log(Claim claim) {
    var logs = node.provisioner().logs();
    var log = logs.of(claim.vmName());
    if (node.store().get(claim.id()).isEmpty()) {
      logs.drop(claim.vmName());
      throw ApiException.unknownSandbox();
    }
    return log;
  }

  /**
   * {@code GET /v1/sandboxes/{id}/logs}: what the sandbox's commands wrote to stdout and stderr,
   * raw, the last {@code tail_bytes} of it; with {@code follow=true} new output is streamed until
   * the client leaves (noticed at the next write) or the sandbox is released.
   */
  private void logs(ServerRequest request, ServerResponse response) throws Exception {
    var claim = node.auth().sandbox(request, ClaimHandlers.id(request), node.store(), true);
    long tail = SandboxLogs.CAP;
    var tailParam = request.query().first("tail_bytes");
    if (tailParam.isPresent()) {
      if (!tailParam.get().matches("[0-9]{1,18}")) {
        throw ApiException.badRequest("tail_bytes must be a non-negative integer");
      }
      tail = Long.parseLong(tailParam.get());
    }
    String followParam = request.query().first("follow").orElse("false");
    if (!followParam.equals("true") && !followParam.equals("false")) {
      throw ApiException.badRequest("follow must be true or false");
    }
    var log = log(claim);
    response.status(Status.OK_200);
    response.header(HeaderNames.CONTENT_TYPE, "text/plain; charset=utf-8");
    if (followParam.equals("false")) {
      response.send(log.tail(tail));
      return;
    }
    try (OutputStream out = response.outputStream()) {
      long position = log.from(tail);
      while (true) {
        var chunk = log.read(position, HEARTBEAT.toMillis());
        if (chunk.bytes().length > 0) {
          out.write(chunk.bytes());
          out.flush();
        }
        position = chunk.end();
        if (chunk.bytes().length == 0 && log.closed()) {
          return;
        }
      }
    } catch (IOException | java.io.UncheckedIOException e) {
      // The client left.
    } catch (InterruptedException e) {
      // The daemon is stopping.
      Thread.currentThread().interrupt();
    }
  }

  private void stream(ServerRequest request, ServerResponse response) throws Exception {
    var claim = node.auth().sandbox(request, ClaimHandlers.id(request), node.store(), false);
    InputStream body = request.content().inputStream();
    var line = new ByteArrayOutputStream();
    boolean hasStdin = false;
    int b;
    while ((b = body.read()) >= 0) {
      if (b == '\n') {
        hasStdin = true;
        break;
      }
      if (line.size() >= Http.BODY_CAP) {
        throw new ApiException(400, "invalid request body");
      }
      line.write(b);
    }
    ExecRequest execRequest;
    try {
      execRequest = parse(JsonFields.of(JsonText.parseObject(line.toByteArray())), claim);
    } catch (JsonFormatError e) {
      throw new ApiException(400, "invalid request body: " + e.getMessage());
    }
    var log = log(claim);
    ExecProcess process =
        BufferedExec.start(node.provisioner().runtime(), claim.vmName(), execRequest);
    try (process) {
      response.status(Status.OK_200);
      response.header(HeaderNames.CONTENT_TYPE, "application/x-ndjson");
      var frames = new FrameWriter(response.outputStream(), process, log);
      boolean stdinOpen = hasStdin;
      Thread stdin =
          Thread.ofVirtual()
              .start(
                  () -> {
                    try (OutputStream to = process.stdin()) {
                      if (stdinOpen) {
                        body.transferTo(to);
                      }
                    } catch (IOException | RuntimeException e) {
                      // The command closed its stdin or ended; nothing more to send.
                    }
                  });
      Thread out = Thread.ofVirtual().start(() -> frames.pump("stdout", process.stdout()));
      Thread err = Thread.ofVirtual().start(() -> frames.pump("stderr", process.stderr()));
      OptionalInt exit;
      long deadline =
          execRequest.timeout().isZero()
              ? Long.MAX_VALUE
              : System.nanoTime() + execRequest.timeout().plusSeconds(5).toNanos();
      while ((exit = process.waitFor(HEARTBEAT)).isEmpty()) {
        if (!frames.heartbeat() || System.nanoTime() - deadline > 0) {
          process.kill();
        }
      }
      out.join();
      err.join();
      stdin.join(Duration.ofSeconds(1));
      var last = JsonText.object().add("exit_code", exit.getAsInt());
      if (process.timedOut()) {
        last.add("timed_out", true);
      }
      frames.write(last.build());
      frames.close();
    }
  }

  /** Writes frames one at a time; a failed write means the client left, and kills the command. */
  private static final class FrameWriter {
    private final OutputStream out;
    private final ExecProcess process;
    private final SandboxLogs.Log log;
    private boolean broken;

    FrameWriter(OutputStream out, ExecProcess process, SandboxLogs.Log log) {
      this.out = out;
      this.process = process;
      this.log = log;
    }

    void pump(String stream, InputStream in) {
      byte[] buffer = new byte[32768];
      try (in) {
        int n;
        while ((n = in.read(buffer)) > 0) {
          log.append(buffer, 0, n);
          byte[] chunk = java.util.Arrays.copyOf(buffer, n);
          write(
              JsonText.object()
                  .add("stream", stream)
                  .add("data", Base64.getEncoder().encodeToString(chunk))
                  .build());
        }
      } catch (IOException e) {
        // The command ended or was killed.
      }
    }

    synchronized void write(jakarta.json.JsonObject frame) {
      if (broken) {
        return;
      }
      try {
        out.write(JsonText.compact(frame));
        out.write('\n');
        out.flush();
      } catch (IOException | RuntimeException e) {
        broken = true;
        process.kill();
      }
    }

    synchronized boolean heartbeat() {
      if (broken) {
        return false;
      }
      try {
        out.write('\n');
        out.flush();
        return true;
      } catch (IOException | RuntimeException e) {
        broken = true;
        return false;
      }
    }

    synchronized void close() {
      try {
        out.close();
      } catch (IOException | RuntimeException e) {
        broken = true;
      }
    }
  }
}
