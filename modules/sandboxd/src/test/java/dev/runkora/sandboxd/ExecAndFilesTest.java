package dev.runkora.sandboxd;

import static org.assertj.core.api.Assertions.assertThat;

import dev.runkora.common.json.JsonText;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import org.junit.jupiter.api.Test;

class ExecAndFilesTest extends DaemonFixture {

  private String id;
  private String token;

  private void claimOne(String body) throws Exception {
    startWarm(1);
    var json = claim(ROOT, body).json();
    id = json.getString("id");
    token = json.getString("token");
  }

  private Api.Reply exec(String body) {
    return api.post("/v1/sandboxes/" + id + "/exec", token, body);
  }

  @Test
  void bufferedExecAnswersExitCodeAndOutputs() throws Exception {
    claimOne("{\"template\":\"host\"}");
    var reply = exec("{\"argv\":[\"sh\",\"-c\",\"echo out; echo err >&2; exit 3\"]}");
    assertThat(reply.status()).isEqualTo(200);
    var json = reply.json();
    assertThat(json.getInt("exit_code")).isEqualTo(3);
    assertThat(json.getString("stdout")).isEqualTo("out\n");
    assertThat(json.getString("stderr")).isEqualTo("err\n");
  }

  @Test
  void claimTimeEnvReachesEveryExecAndExecEnvWins() throws Exception {
    claimOne("{\"template\":\"host\",\"env\":{\"GREETING\":\"hi\",\"WHO\":\"claim\"}}");
    var json =
        exec("{\"argv\":[\"sh\",\"-c\",\"echo $GREETING $WHO\"],\"env\":{\"WHO\":\"exec\"}}")
            .json();
    assertThat(json.getString("stdout")).isEqualTo("hi exec\n");
  }

  @Test
  void outputOverEightMebibytesIs413() throws Exception {
    claimOne("{\"template\":\"host\"}");
    var reply = exec("{\"argv\":[\"sh\",\"-c\",\"head -c 9000000 /dev/zero\"]}");
    assertThat(reply.status()).isEqualTo(413);
    assertThat(reply.error()).contains("8 MiB");
  }

  @Test
  void aCommandPastItsTimeoutIs504() throws Exception {
    claimOne("{\"template\":\"host\"}");
    var reply = exec("{\"argv\":[\"sleep\",\"30\"],\"timeout_seconds\":1}");
    assertThat(reply.status()).isEqualTo(504);
  }

  @Test
  void aMissingProgramIs400() throws Exception {
    claimOne("{\"template\":\"host\"}");
    assertThat(exec("{\"argv\":[\"/no/such/program\"]}").status()).isEqualTo(400);
  }

  @Test
  void streamingExecSendsFramesPassesStdinAndEndsWithTheExitCode() throws Exception {
    claimOne("{\"template\":\"host\"}");
    byte[] body =
        ("{\"argv\":[\"sh\",\"-c\",\"cat; echo done >&2; exit 7\"]}\nhello stdin")
            .getBytes(StandardCharsets.UTF_8);
    var connection = api.open("POST", "/v1/sandboxes/" + id + "/exec/stream", token);
    connection.setDoOutput(true);
    connection.setChunkedStreamingMode(0);
    try (var out = connection.getOutputStream()) {
      out.write(body);
    }
    assertThat(connection.getResponseCode()).isEqualTo(200);
    var stdout = new StringBuilder();
    var stderr = new StringBuilder();
    int exit = -1;
    try (var lines =
        new BufferedReader(
            new InputStreamReader(connection.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = lines.readLine()) != null) {
        if (line.isBlank()) {
          continue;
        }
        var frame = JsonText.parseObject(line);
        if (frame.containsKey("exit_code")) {
          exit = frame.getInt("exit_code");
          continue;
        }
        String data =
            new String(Base64.getDecoder().decode(frame.getString("data")), StandardCharsets.UTF_8);
        (frame.getString("stream").equals("stdout") ? stdout : stderr).append(data);
      }
    }
    assertThat(stdout.toString()).isEqualTo("hello stdin");
    assertThat(stderr.toString()).isEqualTo("done\n");
    assertThat(exit).isEqualTo(7);
  }

  @Test
  void filesAreWrittenReadAndListed() throws Exception {
    claimOne("{\"template\":\"host\"}");
    var dir = Files.createDirectories(temp.resolve("files"));
    String file = dir.resolve("note.txt").toString();
    var put =
        api.sendBytes(
            "PUT",
            "/v1/sandboxes/" + id + "/files?path=" + file,
            token,
            "line one\nline two\n".getBytes(StandardCharsets.UTF_8));
    assertThat(put.status()).isEqualTo(204);
    var get = api.get("/v1/sandboxes/" + id + "/files?path=" + file, token);
    assertThat(get.status()).isEqualTo(200);
    assertThat(get.body()).isEqualTo("line one\nline two\n");
    var list = api.get("/v1/sandboxes/" + id + "/files?path=" + dir, token).json();
    var entry = list.getJsonArray("entries").getJsonObject(0);
    assertThat(entry.getString("name")).isEqualTo("note.txt");
    assertThat(entry.getString("type")).isEqualTo("file");
    assertThat(entry.getJsonNumber("size").longValue()).isEqualTo(18);
    assertThat(api.get("/v1/sandboxes/" + id + "/files?path=" + dir + "/none", token).status())
        .isEqualTo(404);
    assertThat(
            api.sendBytes(
                    "PUT",
                    "/v1/sandboxes/" + id + "/files?path=/no/such/dir/x",
                    token,
                    new byte[] {1})
                .status())
        .isEqualTo(404);
    assertThat(api.get("/v1/sandboxes/" + id + "/files?path=relative", token).status())
        .isEqualTo(400);
    assertThat(api.get("/v1/sandboxes/" + id + "/files?path=" + file, ROOT).status())
        .isEqualTo(404);
  }

  @Test
  void claimTimeMountsAreBoundIntoTheWarmSandbox() throws Exception {
    startWarm(1);
    var host = Files.createDirectories(temp.resolve("shared"));
    int created = runtime.created.get();
    var reply =
        claim(
            ROOT,
            "{\"template\":\"host\",\"mounts\":[{\"host_path\":\""
                + host
                + "\",\"path\":\"/work\",\"mode\":\"ro\"}]}");
    assertThat(reply.status()).isEqualTo(200);
    // Served warm: the mount went into an existing sandbox, no new one was made for the claim.
    assertThat(daemon.info().claimed()).isEqualTo(1);
    var mounted =
        runtime.boxes.values().stream()
            .filter(b -> !b.liveMounts().isEmpty())
            .findFirst()
            .orElseThrow();
    assertThat(mounted.liveMounts().getFirst().sandboxPath()).isEqualTo("/work");
    assertThat(mounted.liveMounts().getFirst().readOnly()).isTrue();
    assertThat(runtime.created.get()).isLessThanOrEqualTo(created + 1);
    var tenant =
        claim(
            TENANT,
            "{\"template\":\"host\",\"mounts\":[{\"host_path\":\""
                + host
                + "\",\"path\":\"/w\"}]}");
    assertThat(tenant.status()).isEqualTo(403);
  }

  @Test
  void aClientThatHangsUpOnAStreamingExecKillsTheCommand() throws Exception {
    claimOne("{\"template\":\"host\"}");
    Path pidFile = temp.resolve("stream.pid");
    byte[] body =
        ("{\"argv\":[\"sh\",\"-c\",\"echo $$ > " + pidFile + "; exec sleep 60\"]}")
            .getBytes(StandardCharsets.UTF_8);
    var connection = api.open("POST", "/v1/sandboxes/" + id + "/exec/stream", token);
    connection.setDoOutput(true);
    try (var out = connection.getOutputStream()) {
      out.write(body);
    }
    assertThat(connection.getResponseCode()).isEqualTo(200);
    org.awaitility.Awaitility.await()
        .atMost(java.time.Duration.ofSeconds(10))
        .until(() -> Files.exists(pidFile) && !Files.readString(pidFile).isBlank());
    long pid = Long.parseLong(Files.readString(pidFile).strip());
    assertThat(ProcessHandle.of(pid)).isPresent();
    connection.getInputStream().close();
    connection.disconnect();
    org.awaitility.Awaitility.await()
        .atMost(java.time.Duration.ofSeconds(15))
        .until(() -> ProcessHandle.of(pid).map(h -> !h.isAlive()).orElse(true));
  }
}
