package dev.runkora.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.runkora.api.SandboxdClient;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code ./kora} launcher end to end, as a user runs it: a daemon started through it, and
 * {@code ./kora run} against that daemon in another process.
 */
class KoraLauncherIT {
  private static final Path ROOT = findRoot();

  @TempDir Path tmp;

  private final List<Process> started = new ArrayList<>();

  /**
   * The daemon serves the {@code host} template through the registry-host plugin and runs sandboxes
   * with bubblewrap; without either there is nothing to run end to end.
   */
  @BeforeAll
  static void needsTheHostRegistryAndBubblewrap() throws IOException {
    Path lib = ROOT.resolve("modules/cli/target/lib");
    assumeTrue(Files.isDirectory(lib), "modules/cli/target/lib is missing: package the CLI first");
    boolean hostRegistry = false;
    try (var jars = Files.list(lib)) {
      for (Path jar :
          jars.filter(p -> p.getFileName().toString().startsWith("kora-plugin-registry-host"))
              .toList()) {
        try (var zip = new java.util.zip.ZipFile(jar.toFile())) {
          hostRegistry |= zip.getEntry("module-info.class") != null;
        }
      }
    }
    assumeTrue(hostRegistry, "the registry-host plugin is not built yet");
    assumeTrue(Files.isExecutable(Path.of("/usr/bin/bwrap")), "bubblewrap is not installed");
  }

  @AfterEach
  void stopDaemons() throws InterruptedException {
    for (Process p : started) {
      p.destroy();
      if (!p.waitFor(20, TimeUnit.SECONDS)) {
        p.destroyForcibly();
      }
    }
  }

  record Result(int exit, String out, String err) {}

  @Test
  void runPrintsTheCommandsOutputFromADaemonStartedAlone() throws Exception {
    int port = freePort();
    Path data = tmp.resolve("data");
    start(
        List.of(
            "sandboxd",
            "--listen",
            "127.0.0.1:" + port,
            "--data-dir",
            data.toString(),
            "--warm",
            "1"),
        env(tmp.resolve("home")));
    String url = "http://127.0.0.1:" + port;
    awaitHealthy(url);

    Map<String, String> env = env(tmp.resolve("home"));
    env.put("KORA_URL", url);
    env.put("KORA_TOKEN_FILE", data.resolve("root-token").toString());
    Result r = kora(List.of("run", "--", "echo", "hello"), env);

    assertThat(r.err()).contains("claim").contains("exec");
    assertThat(r.exit()).isZero();
    assertThat(r.out()).isEqualTo("hello\n");
  }

  @Test
  void upWritesWhereEverythingIsAndTheClientCommandsFindIt() throws Exception {
    int port = freePort();
    Path home = tmp.resolve("home");
    Path data = tmp.resolve("data");
    Process up =
        start(
            List.of(
                "up",
                "--listen",
                "127.0.0.1:" + port,
                "--data-dir",
                data.toString(),
                "--warm",
                "2"),
            env(home));
    List<String> lines = new ArrayList<>();
    BufferedReader reader =
        new BufferedReader(new InputStreamReader(up.getInputStream(), StandardCharsets.UTF_8));
    await()
        .atMost(Duration.ofMinutes(3))
        .until(
            () -> {
              String line = reader.readLine();
              if (line != null) {
                lines.add(line);
              }
              return line == null || line.startsWith("ready");
            });
    assertThat(lines).contains("warming host/none/small 2/2").anyMatch(l -> l.startsWith("ready"));
    assertThat(lines.getFirst()).isEqualTo("kora-sandboxd listening on http://127.0.0.1:" + port);
    Path tokenFile = data.resolve("root-token");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(tokenFile)))
        .isEqualTo("rw-------");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(data)))
        .isEqualTo("rwx------");
    Path daemonFile = home.resolve("daemon.json");
    assertThat(daemonFile).exists();

    Result run =
        kora(List.of("run", "--", "sh", "-c", "echo out; echo err >&2; exit 3"), env(home));
    assertThat(run.exit()).isEqualTo(3);
    assertThat(run.out()).isEqualTo("out\n");
    assertThat(run.err()).contains("err\n");

    Result claim = kora(List.of("claim", "--json", "--ref", "it/claim"), env(home));
    assertThat(claim.exit()).isZero();
    assertThat(claim.out()).contains("\"id\":\"sb_");
    Result list = kora(List.of("sandboxes"), env(home));
    assertThat(list.out()).contains("it/claim");
    String id =
        list.out()
            .lines()
            .filter(l -> l.contains("it/claim"))
            .findFirst()
            .orElseThrow()
            .split("\\s+")[0];
    Result exec = kora(List.of("exec", id, "--", "echo", "again"), env(home));
    assertThat(exec.out()).isEqualTo("again\n");
    assertThat(kora(List.of("release", id), env(home)).exit()).isZero();
    assertThat(kora(List.of("sandboxes", "--json", "--ref", "it/claim"), env(home)).out())
        .isEqualTo("{\"sandboxes\":[]}\n");

    up.destroy();
    assertThat(up.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(daemonFile).doesNotExist();
    // With daemon.json gone the client falls back to the default address, where (usually) no
    // daemon runs; either way it must not reach the stopped one.
    Result after = kora(List.of("info"), env(home));
    assertThat(after.exit()).isEqualTo(1);
    assertThat(after.err()).contains("kora-sandboxd").doesNotContain(":" + port);
  }

  @Test
  void benchPrintsEveryFigureWithItsBaseline() throws Exception {
    Result r =
        kora(
            List.of(
                "bench",
                "--iterations",
                "10",
                "--sandboxes",
                "20",
                "--clients",
                "4",
                "--seconds",
                "1"),
            env(tmp.resolve("home")));

    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out())
        .contains("warm claim over HTTP (claims.json commit)")
        .contains("GET /healthz")
        .contains("cold claim (host, no warm sandbox)")
        .contains("exec `true` round trip (buffered)")
        .contains("spawn `true` from Java")
        .contains("20 warm sandboxes: daemon RSS")
        .contains("4 concurrent clients claiming");
  }

  // ---- helpers ----

  private static Path findRoot() {
    Path p = Path.of("").toAbsolutePath();
    while (p != null && !Files.isExecutable(p.resolve("kora"))) {
      p = p.getParent();
    }
    if (p == null) {
      throw new IllegalStateException("./kora not found above " + Path.of("").toAbsolutePath());
    }
    return p;
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  private static Map<String, String> env(Path home) {
    Map<String, String> env = new HashMap<>();
    env.put("KORA_HOME", home.toString());
    // Maven built the CLI already; the launcher must not start a nested build.
    env.put("KORA_SKIP_BUILD", "1");
    return env;
  }

  private ProcessBuilder builder(List<String> args, Map<String, String> env) {
    List<String> command = new ArrayList<>();
    command.add(ROOT.resolve("kora").toString());
    command.addAll(args);
    ProcessBuilder pb = new ProcessBuilder(command).directory(ROOT.toFile());
    pb.environment().remove("KORA_URL");
    pb.environment().remove("KORA_TOKEN");
    pb.environment().remove("KORA_TOKEN_FILE");
    pb.environment().putAll(env);
    return pb;
  }

  private Process start(List<String> args, Map<String, String> env) throws IOException {
    Process p =
        builder(args, env)
            .redirectError(tmp.resolve("daemon-" + started.size() + ".log").toFile())
            .start();
    started.add(p);
    return p;
  }

  private Result kora(List<String> args, Map<String, String> env) throws Exception {
    Process p = builder(args, env).start();
    p.getOutputStream().close();
    CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> read(p.getErrorStream()));
    String out = read(p.getInputStream());
    assertThat(p.waitFor(10, TimeUnit.MINUTES)).isTrue();
    return new Result(p.exitValue(), out, err.get());
  }

  private static String read(java.io.InputStream in) {
    try {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static void awaitHealthy(String url) {
    try (SandboxdClient client = SandboxdClient.builder(url).build()) {
      await().atMost(Duration.ofMinutes(2)).until(client::isHealthy);
    }
  }
}
