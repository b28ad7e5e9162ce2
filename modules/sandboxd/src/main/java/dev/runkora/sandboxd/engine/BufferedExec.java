package dev.runkora.sandboxd.engine;

import dev.runkora.spi.core.ErrorKind;
import dev.runkora.spi.core.KoraException;
import dev.runkora.spi.runtime.ExecProcess;
import dev.runkora.spi.runtime.ExecRequest;
import dev.runkora.spi.runtime.SandboxRuntime;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.OptionalInt;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The buffered exec of the sandboxd API: runs a command, collects stdout and stderr up to 8 MiB
 * together, and kills the command when it outlives its timeout or its output cap.
 */
public final class BufferedExec {

  /** The cap on stdout and stderr together. */
  public static final long OUTPUT_CAP = 8L << 20;

  /** How long past its own timeout a command may take to report before the daemon gives up. */
  private static final Duration GRACE = Duration.ofSeconds(5);

  /**
   * The outcome.
   *
   * @param exitCode the command's exit code
   * @param stdout its standard output
   * @param stderr its standard error
   */
  public record Result(int exitCode, byte[] stdout, byte[] stderr) {}

  private BufferedExec() {}

  /**
   * Runs a command to its end; its output is also appended to {@code log}.
   *
   * @throws ApiException 400 for a missing program or directory, 413 over the output cap, 504 past
   *     the timeout, 502 when the sandbox cannot run it
   */
  public static Result run(
      SandboxRuntime runtime, String vm, ExecRequest request, SandboxLogs.Log log) {
    ExecProcess process = start(runtime, vm, request);
    try (process) {
      process.stdin().close();
      var total = new AtomicLong();
      var overflow = new AtomicBoolean();
      var out = new ByteArrayOutputStream();
      var err = new ByteArrayOutputStream();
      Thread outReader =
          Thread.ofVirtual()
              .start(() -> drain(process.stdout(), out, log, total, overflow, process));
      Thread errReader =
          Thread.ofVirtual()
              .start(() -> drain(process.stderr(), err, log, total, overflow, process));
      OptionalInt exit =
          request.timeout().isZero()
              ? process.waitFor(Duration.ZERO)
              : process.waitFor(request.timeout().plus(GRACE));
      if (exit.isEmpty()) {
        process.kill();
        throw new ApiException(504, "command timed out");
      }
      outReader.join();
      errReader.join();
      if (overflow.get()) {
        throw new ApiException(413, "output exceeds 8 MiB");
      }
      if (process.timedOut()) {
        throw new ApiException(504, "command timed out");
      }
      return new Result(exit.getAsInt(), out.toByteArray(), err.toByteArray());
    } catch (IOException e) {
      throw new ApiException(502, "exec failed: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.kill();
      throw new ApiException(502, "exec interrupted", e);
    }
  }

  /** Starts a command, mapping the runtime's errors to the API's statuses. */
  public static ExecProcess start(SandboxRuntime runtime, String vm, ExecRequest request) {
    try {
      return runtime.exec(vm, request);
    } catch (KoraException e) {
      if (e.kind() == ErrorKind.INVALID_ARGUMENT) {
        throw new ApiException(400, e.getMessage(), e);
      }
      throw new ApiException(502, "sandbox unreachable: " + e.getMessage(), e);
    }
  }

  private static void drain(
      InputStream in,
      ByteArrayOutputStream sink,
      SandboxLogs.Log log,
      AtomicLong total,
      AtomicBoolean overflow,
      ExecProcess process) {
    byte[] buffer = new byte[16384];
    try (in) {
      int n;
      while ((n = in.read(buffer)) > 0) {
        log.append(buffer, 0, n);
        if (overflow.get()) {
          continue;
        }
        if (total.addAndGet(n) > OUTPUT_CAP) {
          overflow.set(true);
          process.kill();
          continue;
        }
        synchronized (sink) {
          sink.write(buffer, 0, n);
        }
      }
    } catch (IOException e) {
      // The stream ends when the command is killed; what was read stands.
    }
  }
}
