package dev.runkora.sandboxd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.runkora.spi.core.KoraException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class StartupTest extends DaemonFixture {

  @Test
  void restartAdoptsRunningClaimsAndDestroysEveryOtherSandboxOfOurs() throws Exception {
    startWarm(2);
    var kept = claim(ROOT, "{\"template\":\"host\"}").json();
    var lost = claim(ROOT, "{\"template\":\"host\"}").json();
    var store = dev.runkora.sandboxd.engine.ClaimStore.image(temp.resolve("data"));
    String lostVm = store.getJsonObject(lost.getString("id")).getString("vm_name");
    // Stop serving without the daemon's own clean-up, as a crash would.
    var field = Sandboxd.class.getDeclaredField("server");
    field.setAccessible(true);
    ((io.helidon.webserver.WebServer) field.get(daemon)).stop();
    daemon = null;
    runtime.stop(lostVm);
    runtime.plant("sbx-stray00000000", true);
    runtime.plant("other-owner", true);

    start(config(0, 0));
    assertThat(runtime.boxes).containsKey("other-owner").doesNotContainKey("sbx-stray00000000");
    assertThat(runtime.boxes).doesNotContainKey(lostVm);
    var rows = api.get("/v1/sandboxes", ROOT).json().getJsonArray("sandboxes");
    assertThat(rows).hasSize(1);
    assertThat(rows.getJsonObject(0).getString("id")).isEqualTo(kept.getString("id"));
    String exec = "/v1/sandboxes/" + kept.getString("id") + "/exec";
    var reply = api.post(exec, kept.getString("token"), "{\"argv\":[\"echo\",\"still here\"]}");
    assertThat(reply.json().getString("stdout")).isEqualTo("still here\n");
    // Every sandbox of ours that is left is listed in claims.json.
    var after = dev.runkora.sandboxd.engine.ClaimStore.image(temp.resolve("data"));
    assertThat(after.keySet()).containsExactly(kept.getString("id"));
  }

  @Test
  void aMalformedClaimsFileStopsStartAndNamesTheFile() throws Exception {
    Path data = Files.createDirectories(temp.resolve("data"));
    Files.writeString(data.resolve("claims.json"), "{\"sb_1\": {\"id\": ");
    runtime = new TestingRuntime(Files.createDirectories(temp.resolve("boxes")));
    assertThatThrownBy(() -> start(config(1, 0)))
        .isInstanceOf(KoraException.class)
        .hasMessageContaining(data.resolve("claims.json").toString())
        .hasMessageContaining("malformed");
  }

  @Test
  void anAddressInUseStopsStartAndSaysWhichOne() throws Exception {
    try (var taken = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      runtime = new TestingRuntime(Files.createDirectories(temp.resolve("boxes")));
      var config = config(0, 0).withListen("127.0.0.1", taken.getLocalPort());
      assertThatThrownBy(() -> start(config))
          .isInstanceOf(KoraException.class)
          .hasMessageContaining("cannot listen on 127.0.0.1:" + taken.getLocalPort());
    }
  }

  @Test
  void configLoaderReadsTheReferenceKeysAndRejectsUnknownOnes() throws Exception {
    Path file = temp.resolve("config.json");
    Files.writeString(
        file,
        """
        {"listen": "127.0.0.1:7788", "data_dir": "/tmp/x", "api_token": "t",
         "tenants": [{"name": "a", "token": "u", "max_claims": 3}],
         "max_claims": 10, "sync_claims": true, "cocoon_bin": "cocoon",
         "pools": [{"template": "host"}, {"template": "host", "size": "large", "warm": 0, "warm_max": 8}],
         "runtime": "process", "autoscaler": "static"}
        """);
    var config = SandboxdConfig.load(file);
    assertThat(config.listenHost()).isEqualTo("127.0.0.1");
    assertThat(config.listenPort()).isEqualTo(7788);
    assertThat(config.pools().getFirst().warm()).isEqualTo(4);
    assertThat(config.pools().get(1).warm()).isZero();
    assertThat(config.pools().get(1).warmMax()).isEqualTo(8);
    assertThat(config.tenants().getFirst().maxClaims()).isEqualTo(3);
    assertThat(config.syncClaims()).isTrue();
    assertThat(config.runtime()).isEqualTo("process");

    Files.writeString(file, "{\"listen\": \":7777\", \"bogus\": 1}");
    assertThatThrownBy(() -> SandboxdConfig.load(file))
        .hasMessageContaining(file.toString())
        .hasMessageContaining("unknown key \"bogus\"");
    Files.writeString(file, "{\"mesh\": {\"node_id\": \"a\"}}");
    assertThatThrownBy(() -> SandboxdConfig.load(file)).hasMessageContaining("not supported");
    Files.writeString(file, "{\"tenants\": [{\"name\": \"a\", \"token\": \"u\"}]}");
    assertThatThrownBy(() -> SandboxdConfig.load(file)).hasMessageContaining("api_token");
    assertThat(SandboxdConfig.load(writeDefaults()).runtime()).isEqualTo("bwrap");
  }

  private Path writeDefaults() throws Exception {
    Path file = temp.resolve("defaults.json");
    Files.writeString(file, "{}");
    return file;
  }
}
