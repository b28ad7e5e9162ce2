package dev.runkora.plugin.runtime.bwrap;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs a short host command (mount, umount, a helper inside a sandbox) to its end and captures what
 * it printed. Used only for set-up and tear-down steps that finish in milliseconds; a step that
 * hangs is killed after a fixed time so that a stuck mount never blocks the node daemon forever.
 */
final class HostCommand {

  private static final long TIMEOUT_SECONDS = 30;

  /** What a command did. */
  record Result(int exitCode, String output) {
    boolean succeeded() {
      return exitCode == 0;
    }
  }

  private HostCommand() {}

  /** Runs a command with an empty standard input; standard error is merged into the output. */
  static Result run(List<String> argv) {
    var builder = new ProcessBuilder(argv).redirectErrorStream(true);
    builder.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
    try {
      var process = builder.start();
      var output = new java.util.concurrent.CompletableFuture<String>();
      Thread.ofVirtual()
          .start(
              () -> {
                try (var in = process.getInputStream()) {
                  output.complete(new String(in.readAllBytes(), StandardCharsets.UTF_8).strip());
                } catch (IOException e) {
                  output.complete("(output unreadable: " + e.getMessage() + ")");
                }
              });
      if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        return new Result(-1, String.join(" ", argv) + " did not end in " + TIMEOUT_SECONDS + " s");
      }
      return new Result(process.exitValue(), output.join());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run " + argv.getFirst(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Result(-1, "interrupted while running " + argv.getFirst());
    }
  }
}
