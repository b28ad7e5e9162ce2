package dev.runkora.plugin.runtime.bwrap;

import dev.runkora.spi.runtime.ExecProcess;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.Duration;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A command started on the host (here: nsenter and the command it runs in a sandbox), seen as an
 * {@link ExecProcess}. The request's timeout is enforced by a virtual thread that kills the tree.
 *
 * <p>Killing "everything it started" is killing the host process's descendants, then the process:
 * the command inside the sandbox is nsenter's child. A process that the command detached and that
 * was re-parented to the sandbox's pid 1 is no longer a descendant; it lives until the sandbox is
 * stopped.
 */
final class HostExecProcess implements ExecProcess {

  private final Process process;
  private final AtomicBoolean timedOut = new AtomicBoolean();

  HostExecProcess(Process process, Duration timeout) {
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
