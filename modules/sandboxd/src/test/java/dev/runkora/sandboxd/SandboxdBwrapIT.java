package dev.runkora.sandboxd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The daemon on the real {@code bwrap} runtime and the {@code host} template. */
class SandboxdBwrapIT {

  @TempDir Path temp;
  private Sandboxd daemon;
  private Api api;
  private String root;

  @BeforeEach
  void start() throws Exception {
    var config =
        SandboxdConfig.defaults(temp.resolve("data"))
            .withListen("127.0.0.1", 0)
            .withPools(List.of(new SandboxdConfig.Pool("host", "none", "small", 2, 0)))
            .withRuntime("bwrap", Map.of());
    daemon = Sandboxd.start(config);
    api = new Api(daemon.port());
    root = Files.readString(temp.resolve("data/root-token")).strip();
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> daemon.info().pools().getFirst().warm() == 2);
  }

  @AfterEach
  void stop() {
    if (daemon != null) {
      daemon.closeAndDestroy();
    }
    Leftovers.destroy("bwrap", Leftovers.stateDir(temp.resolve("data"), "bwrap"));
  }

  @Test
  void closeAndDestroyLeavesNoSandboxMountOrCgroupBehind() throws Exception {
    var claim = api.post("/v1/claim", root, "{\"template\":\"host\"}");
    assertThat(claim.status()).isEqualTo(200);
    Path state = Leftovers.stateDir(temp.resolve("data"), "bwrap");
    var names = Leftovers.list("bwrap", state);
    // The claimed one, the warm one left, and the refill the claim started.
    assertThat(names).hasSizeGreaterThanOrEqualTo(2);

    assertThat(daemon.closeAndDestroy()).isEqualTo(1);
    daemon = null;

    assertThat(Leftovers.list("bwrap", state)).isEmpty();
    assertThat(dev.runkora.sandboxd.engine.ClaimStore.image(temp.resolve("data"))).isEmpty();
    String mounts = Files.readString(Path.of("/proc/self/mountinfo"));
    assertThat(mounts).doesNotContain(state.toAbsolutePath().toString());
    for (String name : names) {
      assertThat(Path.of("/sys/fs/cgroup/memory/kora", name)).doesNotExist();
      assertThat(Path.of("/sys/fs/cgroup/pids/kora", name)).doesNotExist();
    }
  }

  private Api.Reply exec(String id, String token, String... argv) {
    var json = new StringBuilder("{\"argv\":[");
    for (int i = 0; i < argv.length; i++) {
      json.append(i == 0 ? "" : ",").append('"').append(argv[i].replace("\"", "\\\"")).append('"');
    }
    return api.post("/v1/sandboxes/" + id + "/exec", token, json.append("]}").toString());
  }

  @Test
  void fromInsideASandboxTheDaemonsStateAndTokensCannotBeRead() throws Exception {
    var claim = api.post("/v1/claim", root, "{\"template\":\"host\"}");
    assertThat(claim.status()).isEqualTo(200);
    String id = claim.json().getString("id");
    String token = claim.json().getString("token");
    assertThat(exec(id, token, "echo", "inside").json().getString("stdout")).isEqualTo("inside\n");

    Path data = temp.resolve("data").toAbsolutePath();
    List<String[]> attempts =
        List.of(
            new String[] {"cat", data.resolve("claims.json").toString()},
            new String[] {"cat", data.resolve("root-token").toString()},
            new String[] {"ls", "-la", data.toString()},
            new String[] {
              "sh", "-c", "cat /proc/*/root" + data.resolve("claims.json") + " 2>/dev/null; true"
            },
            new String[] {
              "sh", "-c", "find / -name claims.json -not -path '/proc/*' 2>/dev/null; true"
            });
    for (String[] argv : attempts) {
      var reply = exec(id, token, argv);
      assertThat(reply.status()).isEqualTo(200);
      var json = reply.json();
      String out = json.getString("stdout") + json.getString("stderr");
      assertThat(out)
          .as(String.join(" ", argv))
          .doesNotContain(token)
          .doesNotContain(root)
          .doesNotContain("\"vm_name\"");
      if (argv.length > 2 && argv[2].startsWith("find")) {
        assertThat(json.getString("stdout")).isEmpty();
      }
      if (!argv[0].equals("sh")) {
        assertThat(json.getInt("exit_code")).as(String.join(" ", argv)).isNotZero();
      }
    }
  }

  @Test
  void aClaimTimeMountIsBoundIntoAWarmSandboxWithoutARestart() throws Exception {
    Path shared = Files.createDirectories(temp.resolve("shared"));
    Files.writeString(shared.resolve("hello.txt"), "from the host\n");
    var claim =
        api.post(
            "/v1/claim",
            root,
            "{\"template\":\"host\",\"env\":{\"KORA_IT\":\"yes\"},\"mounts\":[{\"host_path\":\""
                + shared
                + "\",\"path\":\"/work\",\"mode\":\"rw\"}]}");
    assertThat(claim.status()).as(claim.body()).isEqualTo(200);
    String id = claim.json().getString("id");
    String token = claim.json().getString("token");
    var read = exec(id, token, "sh", "-c", "cat /work/hello.txt; echo $KORA_IT > /work/out.txt");
    assertThat(read.json().getString("stdout")).isEqualTo("from the host\n");
    assertThat(Files.readString(shared.resolve("out.txt"))).isEqualTo("yes\n");
    assertThat(api.get("/metrics", root).body()).contains("sandboxd_claims_total{tier=\"warm\"} 1");
  }

  @Test
  void aWorkspaceMountOutlivesTheSandboxAndIsSharedByTheNextClaim() throws Exception {
    String body =
        "{\"template\":\"host\",\"mounts\":[{\"workspace\":\"agent-1\",\"path\":\"/workspace\","
            + "\"size_bytes\":1048576}]}";
    var first = api.post("/v1/claim", root, body);
    assertThat(first.status()).as(first.body()).isEqualTo(200);
    String id = first.json().getString("id");
    String token = first.json().getString("token");
    var write = exec(id, token, "sh", "-c", "echo kept > /workspace/state.txt");
    assertThat(write.json().getInt("exit_code")).as(write.body()).isZero();
    assertThat(api.post("/v1/sandboxes/" + id + "/release", token, null).status()).isEqualTo(204);

    var second = api.post("/v1/claim", root, body);
    assertThat(second.status()).isEqualTo(200);
    var read =
        exec(
            second.json().getString("id"),
            second.json().getString("token"),
            "cat",
            "/workspace/state.txt");
    assertThat(read.json().getString("stdout")).isEqualTo("kept\n");
  }
}
