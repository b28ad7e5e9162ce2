package dev.runkora.testing.cluster;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The local control plane of {@code conformance/cluster}: {@code up.sh DIR} starts etcd,
 * kube-apiserver, kube-controller-manager and kube-scheduler in the background and returns once the
 * plane is usable; {@code down.sh DIR} stops them by their recorded pids and removes DIR.
 */
final class LocalControlPlane implements AutoCloseable {
  private static final String PREFIX = "kora cluster: ";
  private static final Duration UP_TIMEOUT = Duration.ofMinutes(5);

  private final Path scripts;
  private final Path dir;
  private final Map<String, String> env;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final Thread shutdownHook;

  private LocalControlPlane(Path scripts, Path dir, Map<String, String> env) {
    this.scripts = scripts;
    this.dir = dir;
    this.env = env;
    this.shutdownHook = new Thread(this::stop, "kora-cluster-down");
  }

  static LocalControlPlane start() {
    Path scripts = scripts();
    Path dir;
    try {
      dir = Files.createTempDirectory("kora-cluster-");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a directory for the control plane", e);
    }
    // Free ports, so that a plane someone started by hand on the defaults does not clash.
    List<Integer> ports = freePorts(5);
    ProcessBuilder builder =
        new ProcessBuilder("bash", scripts.resolve("up.sh").toString(), dir.toString())
            .redirectErrorStream(true)
            .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
    Map<String, String> processEnv = builder.environment();
    processEnv.put("KORA_ETCD_PORT", ports.get(0).toString());
    processEnv.put("KORA_ETCD_PEER_PORT", ports.get(1).toString());
    processEnv.put("KORA_APISERVER_PORT", ports.get(2).toString());
    processEnv.put("KORA_KCM_PORT", ports.get(3).toString());
    processEnv.put("KORA_SCHEDULER_PORT", ports.get(4).toString());
    processEnv.remove("KUBECONFIG");

    System.err.println(PREFIX + "starting the local control plane in " + dir);
    long started = System.nanoTime();
    int exit = run(builder, UP_TIMEOUT);
    double seconds = (System.nanoTime() - started) / 1e9;
    if (exit != 0) {
      throw new IllegalStateException(
          "conformance/cluster/up.sh exited with "
              + exit
              + " (logs, if any, in "
              + dir.resolve("logs")
              + "; the binaries come from conformance/cluster/build.sh)");
    }
    LocalControlPlane plane = new LocalControlPlane(scripts, dir, readEnv(dir.resolve("env")));
    Runtime.getRuntime().addShutdownHook(plane.shutdownHook);
    System.err.printf(
        Locale.ROOT,
        PREFIX + "Kubernetes %s ready in %.1f s (start to ready) at %s%n",
        plane.env.getOrDefault("KORA_K8S_VERSION", "?"),
        seconds,
        plane.env.getOrDefault("KORA_APISERVER_URL", "?"));
    plane.printMemory("at ready");
    return plane;
  }

  Path kubeconfig() {
    String file = env.get("KUBECONFIG");
    if (file == null) {
      throw new IllegalStateException(dir.resolve("env") + " names no KUBECONFIG");
    }
    return Path.of(file);
  }

  /** Resident memory of the four processes now (VmRSS) and at their peak (VmHWM), in KiB. */
  Map<String, long[]> memory() {
    Map<String, long[]> memory = new LinkedHashMap<>();
    try {
      for (String line : Files.readAllLines(dir.resolve("pids"))) {
        String[] parts = line.trim().split("\\s+");
        if (parts.length != 2) {
          continue;
        }
        Path status = Path.of("/proc", parts[1], "status");
        long rss = -1;
        long peak = -1;
        try {
          for (String field : Files.readAllLines(status)) {
            if (field.startsWith("VmRSS:")) {
              rss = kib(field);
            } else if (field.startsWith("VmHWM:")) {
              peak = kib(field);
            }
          }
        } catch (IOException e) {
          // The process is gone; report it as -1.
        }
        memory.put(parts[0], new long[] {rss, peak});
      }
    } catch (IOException e) {
      // No pids file: nothing to report.
    }
    return memory;
  }

  private void printMemory(String when) {
    Map<String, long[]> memory = memory();
    long rss = 0;
    long peak = 0;
    StringBuilder parts = new StringBuilder();
    for (Map.Entry<String, long[]> entry : memory.entrySet()) {
      rss += Math.max(0, entry.getValue()[0]);
      peak += Math.max(0, entry.getValue()[1]);
      parts.append(
          String.format(
              Locale.ROOT,
              " %s %d/%d",
              entry.getKey(),
              entry.getValue()[0] / 1024,
              entry.getValue()[1] / 1024));
    }
    System.err.printf(
        Locale.ROOT,
        PREFIX + "control plane memory %s: RSS %d MiB, peak %d MiB (rss/peak MiB:%s)%n",
        when,
        rss / 1024,
        peak / 1024,
        parts);
  }

  @Override
  public void close() {
    stop();
    try {
      Runtime.getRuntime().removeShutdownHook(shutdownHook);
    } catch (IllegalStateException e) {
      // Already shutting down: the hook is running or has run.
    }
  }

  private void stop() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    printMemory("at the end");
    ProcessBuilder builder =
        new ProcessBuilder("bash", scripts.resolve("down.sh").toString(), dir.toString())
            .redirectErrorStream(true);
    int exit = run(builder, Duration.ofMinutes(1));
    if (exit != 0) {
      System.err.println(PREFIX + "down.sh exited with " + exit + " for " + dir);
    }
  }

  private static int run(ProcessBuilder builder, Duration timeout) {
    try {
      Process process = builder.start();
      // Echo the script's progress lines through System.err (a forked test JVM's raw stdout is
      // surefire's channel).
      Thread echo =
          Thread.ofPlatform()
              .daemon()
              .start(
                  () -> {
                    try (BufferedReader reader =
                        new BufferedReader(
                            new InputStreamReader(
                                process.getInputStream(), StandardCharsets.UTF_8))) {
                      String line;
                      while ((line = reader.readLine()) != null) {
                        System.err.println("  " + line);
                      }
                    } catch (IOException e) {
                      // The process went away.
                    }
                  });
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly();
        throw new IllegalStateException(builder.command() + " did not finish within " + timeout);
      }
      echo.join(Duration.ofSeconds(5));
      return process.exitValue();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run " + builder.command(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while running " + builder.command(), e);
    }
  }

  private static long kib(String statusLine) {
    String[] parts = statusLine.trim().split("\\s+");
    return parts.length >= 2 ? Long.parseLong(parts[1]) : -1;
  }

  private static Map<String, String> readEnv(Path file) {
    Map<String, String> env = new LinkedHashMap<>();
    try {
      for (String line : Files.readAllLines(file)) {
        int eq = line.indexOf('=');
        if (eq > 0) {
          env.put(line.substring(0, eq), line.substring(eq + 1));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("up.sh wrote no " + file, e);
    }
    return env;
  }

  private static List<Integer> freePorts(int count) {
    List<ServerSocket> sockets = new ArrayList<>();
    try {
      List<Integer> ports = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        sockets.add(socket);
        ports.add(socket.getLocalPort());
      }
      return ports;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot find free loopback ports", e);
    } finally {
      for (ServerSocket socket : sockets) {
        try {
          socket.close();
        } catch (IOException e) {
          // Closing a listening socket that never accepted does not fail in practice.
        }
      }
    }
  }

  private static Path scripts() {
    String configured = System.getProperty("kora.cluster.scripts");
    if (configured != null && !configured.isBlank()) {
      Path dir = Path.of(configured).toAbsolutePath();
      if (!Files.isRegularFile(dir.resolve("up.sh"))) {
        throw new IllegalStateException("kora.cluster.scripts=" + dir + " holds no up.sh");
      }
      return dir;
    }
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      Path candidate = dir.resolve("conformance").resolve("cluster");
      if (Files.isRegularFile(candidate.resolve("up.sh"))) {
        return candidate;
      }
    }
    throw new IllegalStateException(
        "conformance/cluster/up.sh not found above "
            + Path.of("").toAbsolutePath()
            + "; set KUBECONFIG or -Dkora.cluster.scripts");
  }
}
