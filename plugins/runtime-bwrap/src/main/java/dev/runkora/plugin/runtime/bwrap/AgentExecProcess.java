package dev.runkora.plugin.runtime.bwrap;

import dev.runkora.spi.runtime.ExecProcess;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A command started by a sandbox's exec agent (see {@link BwrapCommandLine#AGENT}), seen as an
 * {@link ExecProcess}. The agent is already inside every namespace and cgroup of the sandbox, so a
 * command costs it a fork and the command's own exec, instead of a chain of host programs entering
 * the sandbox.
 *
 * <p>One request is a directory {@code <live>/exec/<id>} the host makes: the command as a small
 * script, and four named pipes (stdin, stdout, stderr, and a status pipe on which the agent reports
 * the command's pid in the sandbox, then its exit code). The host then writes {@code <id>} to the
 * agent's control pipe. The sandbox sees that directory read-only; the host opens only pipes it
 * made, without following links.
 *
 * <p>Killing "everything it started" is killing the command's descendants, then the command, found
 * on the host by its pid in the sandbox's pid namespace.
 */
final class AgentExecProcess implements ExecProcess {

  /** How long the agent may take to pick a request up before the exec fails. */
  private static final Duration ANSWER_TIMEOUT = Duration.ofSeconds(10);

  private static final AtomicLong IDS = new AtomicLong(System.nanoTime() & 0xffff_ffffL);

  private final Path dir;
  private final long initPid;
  private final long pid;
  private final OutputStream stdin;
  private final InputStream stdout;
  private final InputStream stderr;
  private final InputStream status;
  private final CompletableFuture<Integer> exit = new CompletableFuture<>();
  private final AtomicBoolean timedOut = new AtomicBoolean();
  private final AtomicBoolean closed = new AtomicBoolean();

  private AgentExecProcess(
      Path dir,
      long initPid,
      long pid,
      OutputStream stdin,
      InputStream stdout,
      InputStream stderr,
      InputStream status) {
    this.dir = dir;
    this.initPid = initPid;
    this.pid = pid;
    this.stdin = stdin;
    this.stdout = stdout;
    this.stderr = stderr;
    this.status = status;
  }

  /**
   * Hands a command to a sandbox's agent and returns once the command runs with its streams
   * connected.
   *
   * @param execDir the host side of the sandbox's exec directory (holding the control pipe)
   * @param initPid the host pid of the sandbox's pid 1
   * @param script the command as a script for the agent's shell
   * @param timeout the request's timeout, zero for none
   * @param fifo what makes the request's named pipes
   */
  static AgentExecProcess start(
      Path execDir, long initPid, String script, Duration timeout, Fifo fifo) throws IOException {
    Path dir;
    while (true) {
      dir = execDir.resolve(Long.toString(IDS.incrementAndGet()));
      try {
        Files.createDirectory(dir);
        break;
      } catch (FileAlreadyExistsException e) {
        // A request of an earlier runtime object: take the next id.
      }
    }
    var opened = new ArrayList<AutoCloseable>();
    try {
      Files.writeString(dir.resolve("cmd"), script, StandardCharsets.UTF_8);
      for (var pipe : List.of("status", "in", "out", "err")) {
        fifo.make(dir.resolve(pipe));
      }
      try (var control =
          FileChannel.open(
              execDir.resolve("ctl"),
              StandardOpenOption.READ,
              StandardOpenOption.WRITE,
              LinkOption.NOFOLLOW_LINKS)) {
        // Read-write, so that the open never waits; one short write is atomic on a pipe.
        control.write(
            ByteBuffer.wrap((dir.getFileName() + "\n").getBytes(StandardCharsets.US_ASCII)));
      }
      var process = connect(dir, initPid, opened);
      process.watch(timeout);
      return process;
    } catch (IOException | RuntimeException e) {
      for (var stream : opened) {
        closeQuietly(stream);
      }
      deleteQuietly(dir);
      throw e;
    }
  }

  /**
   * Opens the pipes in the order the agent does (status, then the command's stdin, stdout, stderr),
   * so that each blocking open meets its other end. Should the agent not answer, a watchdog opens
   * the pipes' other ends itself, which releases every waiting open, and the exec fails.
   */
  private static AgentExecProcess connect(Path dir, long initPid, List<AutoCloseable> opened)
      throws IOException {
    var done = new CountDownLatch(1);
    var gaveUp = new AtomicBoolean();
    Thread.ofVirtual()
        .name("kora-exec-open-" + dir.getFileName())
        .start(
            () -> {
              try {
                if (!done.await(ANSWER_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                  gaveUp.set(true);
                  for (var pipe : List.of("status", "in", "out", "err")) {
                    try {
                      // Opening both ends completes the pending open on the other side.
                      FileChannel.open(
                              dir.resolve(pipe),
                              StandardOpenOption.READ,
                              StandardOpenOption.WRITE,
                              LinkOption.NOFOLLOW_LINKS)
                          .close();
                    } catch (IOException e) {
                      // Gone already.
                    }
                  }
                }
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            });
    try {
      var status = read(dir.resolve("status"));
      opened.add(status);
      var stdin = write(dir.resolve("in"));
      opened.add(stdin);
      var stdout = read(dir.resolve("out"));
      opened.add(stdout);
      var stderr = read(dir.resolve("err"));
      opened.add(stderr);
      var pidLine = readLine(status);
      if (gaveUp.get() || pidLine == null) {
        throw new IOException("the sandbox's exec agent did not answer within " + ANSWER_TIMEOUT);
      }
      long pid;
      try {
        pid = Long.parseLong(pidLine);
      } catch (NumberFormatException e) {
        throw new IOException("the sandbox's exec agent answered '" + pidLine + "'", e);
      }
      return new AgentExecProcess(dir, initPid, pid, stdin, stdout, stderr, status);
    } finally {
      done.countDown();
    }
  }

  private static InputStream read(Path pipe) throws IOException {
    return Files.newInputStream(pipe, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS);
  }

  private static OutputStream write(Path pipe) throws IOException {
    return Files.newOutputStream(pipe, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);
  }

  /** Reads one line of the status pipe byte by byte (nothing past it); null at its end. */
  private static String readLine(InputStream in) throws IOException {
    var line = new ByteArrayOutputStream();
    while (true) {
      int b = in.read();
      if (b < 0) {
        return line.size() == 0 ? null : line.toString(StandardCharsets.US_ASCII);
      }
      if (b == '\n') {
        return line.toString(StandardCharsets.US_ASCII).trim();
      }
      line.write(b);
    }
  }

  private void watch(Duration timeout) {
    Thread.ofVirtual()
        .name("kora-exec-" + dir.getFileName())
        .start(
            () -> {
              try {
                var line = readLine(status);
                // No code: the agent's helper died with the command (the sandbox was stopped).
                exit.complete(line == null ? 128 + 9 : Integer.parseInt(line));
              } catch (IOException | NumberFormatException e) {
                exit.complete(128 + 9);
              }
            });
    if (!timeout.isZero()) {
      Thread.ofVirtual()
          .name("kora-exec-timeout-" + dir.getFileName())
          .start(
              () -> {
                try {
                  exit.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
                } catch (TimeoutException e) {
                  timedOut.set(true);
                  kill();
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                } catch (ExecutionException e) {
                  // Not completed exceptionally.
                }
              });
    }
  }

  @Override
  public OutputStream stdin() {
    return stdin;
  }

  @Override
  public InputStream stdout() {
    return stdout;
  }

  @Override
  public InputStream stderr() {
    return stderr;
  }

  @Override
  public OptionalInt waitFor(Duration timeout) throws InterruptedException {
    try {
      if (timeout.isZero()) {
        return OptionalInt.of(exit.get());
      }
      return OptionalInt.of(exit.get(timeout.toMillis(), TimeUnit.MILLISECONDS));
    } catch (TimeoutException e) {
      return OptionalInt.empty();
    } catch (ExecutionException e) {
      throw new IllegalStateException(e.getCause());
    }
  }

  @Override
  public boolean timedOut() {
    return timedOut.get();
  }

  @Override
  public void kill() {
    if (exit.isDone()) {
      return;
    }
    hostProcess()
        .ifPresent(
            command -> {
              command.descendants().forEach(ProcessHandle::destroyForcibly);
              command.destroyForcibly();
            });
  }

  /** Finds the command on the host: the sandbox process whose pid in the sandbox is ours. */
  private java.util.Optional<ProcessHandle> hostProcess() {
    return ProcessHandle.of(initPid)
        .flatMap(
            init ->
                init.descendants()
                    .filter(candidate -> sandboxPid(candidate.pid()) == pid)
                    .findFirst());
  }

  /** Returns a host process's pid in the sandbox's pid namespace (the second NSpid), or -1. */
  private static long sandboxPid(long hostPid) {
    try {
      for (var line : Files.readAllLines(Path.of("/proc", Long.toString(hostPid), "status"))) {
        if (line.startsWith("NSpid:")) {
          var fields = line.substring(6).trim().split("\\s+");
          return fields.length > 1 ? Long.parseLong(fields[1]) : -1;
        }
      }
    } catch (IOException | RuntimeException e) {
      // Ended meanwhile.
    }
    return -1;
  }

  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    kill();
    closeQuietly(stdin);
    closeQuietly(stdout);
    closeQuietly(stderr);
    closeQuietly(status);
    deleteQuietly(dir);
  }

  private static void closeQuietly(AutoCloseable stream) {
    try {
      stream.close();
    } catch (Exception e) {
      // Nothing to do: the command is gone.
    }
  }

  private static void deleteQuietly(Path dir) {
    for (var name : List.of("cmd", "status", "in", "out", "err")) {
      try {
        Files.deleteIfExists(dir.resolve(name));
      } catch (IOException e) {
        // Left for delete(), which removes the whole sandbox directory.
      }
    }
    try {
      Files.deleteIfExists(dir);
    } catch (IOException e) {
      // As above.
    }
  }
}
