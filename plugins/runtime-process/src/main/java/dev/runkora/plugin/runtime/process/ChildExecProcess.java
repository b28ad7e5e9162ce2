package dev.runkora.plugin.runtime.process;

import dev.runkora.spi.runtime.ExecProcess;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.Duration;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A child process of the JVM seen as an {@link ExecProcess}. The request's timeout is enforced by a
 * virtual thread; kill() kills the process and its descendants (what it started and still parents).
 */
final class ChildExecProcess implements ExecProcess {

  private final Process process;
  private final AtomicBoolean timedOut = new AtomicBoolean();

  ChildExecProcess(Process process, Duration timeout) {
    this.process = process;
    if (!timeout.isZero()) {
      Thread.ofVirtual()
          .name("kora-exec-timeout-" + process.pid())
          .start(
              () -> {
                try {
                  if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                    timedOut.set(true);
                    kill();
                  }
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              });
    }
  }

  @Override
  public OutputStream stdin() {
    return process.getOutputStream();
  }

  @Override
  public InputStream stdout() {
    return process.getInputStream();
  }

  @Override
  public InputStream stderr() {
    return process.getErrorStream();
  }

  @Override
  public OptionalInt waitFor(Duration timeout) throws InterruptedException {
    if (timeout.isZero()) {
      return OptionalInt.of(process.waitFor());
    }
    if (process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      return OptionalInt.of(process.exitValue());
    }
    return OptionalInt.empty();
  }

  @Override
  public boolean timedOut() {
    return timedOut.get();
  }

  @Override
  public void kill() {
    // Through the handle: Process.destroyForcibly() would also close the output streams under a
    // reader that still wants what the command wrote before it died.
    process.descendants().forEach(ProcessHandle::destroyForcibly);
    process.toHandle().destroyForcibly();
  }

  @Override
  public void close() {
    if (process.isAlive()) {
      kill();
    }
    closeQuietly(process.getOutputStream());
    closeQuietly(process.getInputStream());
    closeQuietly(process.getErrorStream());
  }

  private static void closeQuietly(AutoCloseable stream) {
    try {
      stream.close();
    } catch (Exception e) {
      // Nothing to do: the process is gone.
    }
  }
}
