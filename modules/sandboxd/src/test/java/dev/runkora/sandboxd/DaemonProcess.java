package dev.runkora.sandboxd;

import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * kora-sandboxd as its own JVM, launched the way its runtime image does: {@code java --module-path
 * ... -m dev.runkora.sandboxd/dev.runkora.sandboxd.Sandboxd -config <file>}.
 */
final class DaemonProcess implements AutoCloseable {

  private final Process process;
  private final Path log;
  final int port;

  private DaemonProcess(Process process, Path log, int port) {
    this.process = process;
    this.log = log;
    this.port = port;
  }

  static int freePort() throws IOException {
    try (var socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  static String modulePath() throws IOException {
    Path target = Path.of("target");
    var entries = new ArrayList<String>();
    entries.add(target.resolve("classes").toAbsolutePath().toString());
    String deps = Files.readString(target.resolve("runtime-module-path.txt")).strip();
    if (!deps.isEmpty()) {
      entries.add(deps);
    }
    return String.join(java.io.File.pathSeparator, entries);
  }

  static List<String> command(String... args) throws IOException {
    var command = new ArrayList<String>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("--module-path");
    command.add(modulePath());
    command.add("-m");
    command.add("dev.runkora.sandboxd/dev.runkora.sandboxd.Sandboxd");
    command.addAll(List.of(args));
    return command;
  }

  /** Starts the daemon and waits until {@code /healthz} answers. */
  static DaemonProcess start(Path config, int port, Path log) throws Exception {
    var builder = new ProcessBuilder(command("-config", config.toString()));
    builder.redirectErrorStream(true);
    builder.redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    var process = builder.start();
    var daemon = new DaemonProcess(process, log, port);
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException(
            "kora-sandboxd exited with " + process.exitValue() + ":\n" + Files.readString(log));
      }
      if (healthy(port)) {
        return daemon;
      }
      Thread.sleep(100);
    }
    daemon.close();
    throw new IllegalStateException(
        "kora-sandboxd did not answer within 60 s:\n" + Files.readString(log));
  }

  private static boolean healthy(int port) {
    try {
      var connection =
          (HttpURLConnection)
              URI.create("http://127.0.0.1:" + port + "/healthz").toURL().openConnection();
      connection.setConnectTimeout(500);
      connection.setReadTimeout(500);
      return connection.getResponseCode() == 200;
    } catch (IOException e) {
      return false;
    }
  }

  String log() throws IOException {
    return Files.readString(log);
  }

  /** Kills the JVM with SIGKILL, as a crash would. */
  void kill9() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor();
  }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(30, java.util.concurrent.TimeUnit.SECONDS)) {
        process.destroyForcibly();
        process.waitFor();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }
}
