package dev.runkora.sandboxd;

import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;

/** Starts an in-process daemon on the testing fakes. */
abstract class DaemonFixture {

  static final String ROOT = "root-token-0123456789";
  static final String TENANT = "tenant-token-acme";

  @TempDir Path temp;
  TestingRuntime runtime;
  Sandboxd daemon;
  Api api;

  SandboxdConfig config(int warm, int maxClaims) {
    return new SandboxdConfig(
        "127.0.0.1",
        0,
        "",
        temp.resolve("data"),
        ROOT,
        Optional.empty(),
        List.of(new SandboxdConfig.Tenant("acme", TENANT, 2)),
        maxClaims,
        2,
        false,
        List.of(new SandboxdConfig.Pool("host", "none", "small", warm, 0)),
        "testing",
        Map.of(),
        SandboxdConfig.Registry.defaults(),
        "testing",
        "");
  }

  void start(SandboxdConfig config) throws Exception {
    if (runtime == null) {
      Path boxes = Files.createDirectories(temp.resolve("boxes"));
      runtime = new TestingRuntime(boxes);
    }
    daemon = Sandboxd.start(config, TestingPlugins.of(runtime, temp.resolve("rootfs")));
    api = new Api(daemon.port());
  }

  void startWarm(int warm) throws Exception {
    start(config(warm, 0));
    awaitWarm(warm);
  }

  void awaitWarm(int warm) {
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> daemon.info().pools().getFirst().warm() == warm);
  }

  Api.Reply claim(String token, String body) {
    return api.post("/v1/claim", token, body);
  }

  /** Leaves nothing of the test's daemon behind: claimed sandboxes too. */
  @AfterEach
  void stop() {
    if (daemon != null) {
      daemon.closeAndDestroy();
    }
  }
}
