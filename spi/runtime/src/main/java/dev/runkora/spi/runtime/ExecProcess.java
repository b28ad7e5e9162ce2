package dev.runkora.spi.runtime;

import java.io.InputStream;
import java.io.OutputStream;
import java.time.Duration;
import java.util.OptionalInt;

/**
 * A command running inside a sandbox, made by {@link SandboxRuntime#exec}. Output is streamed as
 * the command writes it. The caller must read (or close) both output streams, or a command that
 * writes a lot blocks; and must call {@link #close()} when done.
 *
 * <p>Streams may be used from different threads (one reader per stream); the other methods are
 * thread-safe.
 */
public interface ExecProcess extends AutoCloseable {

  /** Returns the command's standard input. Closing it sends end-of-file. */
  OutputStream stdin();

  /** Returns the command's standard output. */
  InputStream stdout();

  /** Returns the command's standard error. */
  InputStream stderr();

  /**
   * Waits for the command to end.
   *
   * @param timeout how long to wait; {@link Duration#ZERO} waits forever
   * @return the exit code (128 + the signal number when a signal ended it), or empty when the wait
   *     timed out and the command still runs
   * @throws InterruptedException when the waiting thread is interrupted
   */
  OptionalInt waitFor(Duration timeout) throws InterruptedException;

  /**
   * Returns whether the request's own timeout ended the command. Meaningful once {@link #waitFor}
   * has returned an exit code.
   */
  boolean timedOut();

  /** Kills the command and everything it started. Idempotent. */
  void kill();

  /** Kills the command if it still runs and frees what it holds. Idempotent. */
  @Override
  void close();
}
