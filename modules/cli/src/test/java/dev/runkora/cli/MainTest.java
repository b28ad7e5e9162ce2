package dev.runkora.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.runkora.api.ClaimMount;
import dev.runkora.api.PoolKey;
import dev.runkora.api.PoolSpec;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MainTest {
  @TempDir Path home;

  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private Console console(Map<String, String> env) {
    return new Console(
        InputStream.nullInputStream(),
        new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8),
        env,
        home);
  }

  private String err() {
    return err.toString(StandardCharsets.UTF_8);
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  @Test
  void noCommandPrintsUsageAndExitsTwo() {
    assertThat(Main.run(List.of(), console(Map.of()))).isEqualTo(2);
    assertThat(err()).contains("usage: kora");
  }

  @Test
  void anUnknownCommandIsAUsageError() {
    assertThat(Main.run(List.of("frobnicate"), console(Map.of()))).isEqualTo(2);
    assertThat(err()).contains("unknown command frobnicate").contains("run, claim");
  }

  @Test
  void vkSandboxInProcessPointsToTheLauncher() {
    assertThat(Main.run(List.of("vk-sandbox", "--version"), console(Map.of()))).isEqualTo(1);
    assertThat(err()).contains("module dev.runkora.vk").contains("./kora vk-sandbox");
  }

  @Test
  void runWithoutACommandIsAUsageError() throws IOException {
    int status = Main.run(List.of("run"), console(Map.of("KORA_URL", "127.0.0.1:" + freePort())));

    assertThat(status).isEqualTo(2);
    assertThat(err()).contains("missing the command");
  }

  @Test
  void aDaemonThatIsNotRunningGetsAClearMessage() throws IOException {
    String url = "http://127.0.0.1:" + freePort();

    int status =
        Main.run(
            List.of("run", "--", "echo", "hello"),
            console(Map.of("KORA_URL", url, "KORA_TOKEN", "secret-root-token")));

    assertThat(status).isEqualTo(1);
    assertThat(err())
        .contains("kora-sandboxd is not running at " + url + ": start it with ./kora up")
        .doesNotContain("secret-root-token");
  }

  @Test
  void clientCommandsFindTheDaemonThroughTheFileUpWrote() throws IOException {
    String url = "http://127.0.0.1:" + freePort();
    Path tokenFile = home.resolve("t");
    Files.writeString(tokenFile, "tok\n");
    new DaemonFile(url, tokenFile, home, 1).write(console(Map.of()).daemonFile());

    Connection c = Connection.resolve(console(Map.of()));

    assertThat(c).isEqualTo(new Connection(url, "tok"));
    assertThat(Main.run(List.of("info"), console(Map.of()))).isEqualTo(1);
    assertThat(err()).contains("not running at " + url);
  }

  @Test
  void environmentOverridesTheDaemonFile() throws IOException {
    new DaemonFile("http://127.0.0.1:1", home.resolve("none"), home, 1)
        .write(console(Map.of()).daemonFile());

    Connection c =
        Connection.resolve(console(Map.of("KORA_URL", "http://node:7777", "KORA_TOKEN", "x")));

    assertThat(c).isEqualTo(new Connection("http://node:7777", "x"));
  }

  @Test
  void aMissingTokenFileNamedByTheEnvironmentIsAnError() {
    assertThatThrownBy(
            () ->
                Connection.resolve(
                    console(Map.of("KORA_TOKEN_FILE", home.resolve("missing").toString()))))
        .isInstanceOf(CliException.class)
        .hasMessageContaining("does not exist");
  }

  @Test
  void aMalformedDaemonFileIsNamed() throws IOException {
    Path file = console(Map.of()).daemonFile();
    Files.createDirectories(file.getParent());
    Files.writeString(file, "{not json");

    assertThat(Main.run(List.of("sandboxes"), console(Map.of()))).isEqualTo(1);
    assertThat(err()).contains(file.toString()).contains("malformed");
  }

  @Test
  void koraHomeFollowsTheEnvironment() {
    assertThat(console(Map.of()).koraHome()).isEqualTo(home.resolve(".local/share/kora"));
    assertThat(console(Map.of("XDG_DATA_HOME", "/x")).koraHome()).isEqualTo(Path.of("/x/kora"));
    assertThat(console(Map.of("KORA_HOME", "/k", "XDG_DATA_HOME", "/x")).koraHome())
        .isEqualTo(Path.of("/k"));
  }

  @Test
  void poolArgumentsSplitNetAndSizeFromTheEnd() {
    assertThat(ClientCommands.parsePool("host=4")).isEqualTo(PoolSpec.of(PoolKey.of("host"), 4));
    assertThat(ClientCommands.parsePool("host/egress=1"))
        .isEqualTo(PoolSpec.of(new PoolKey("host", "egress", "small"), 1));
    assertThat(ClientCommands.parsePool("127.0.0.1:5000/lib/busybox:1/none/large=2"))
        .isEqualTo(PoolSpec.of(new PoolKey("127.0.0.1:5000/lib/busybox:1", "none", "large"), 2));
    assertThatThrownBy(() -> ClientCommands.parsePool("host")).isInstanceOf(UsageException.class);
    assertThatThrownBy(() -> ClientCommands.parsePool("host=-1"))
        .isInstanceOf(UsageException.class);
  }

  @Test
  void mountOptionsBecomeClaimMounts() {
    Args args =
        Args.parse(
            List.of("--mount", "/srv:/data:ro", "--mount", "/x:/y", "--workspace", "w:/work"),
            ClientCommands.CLAIM);

    assertThat(ClientCommands.mounts(args))
        .containsExactly(
            ClaimMount.hostPath("/srv", "/data", true),
            ClaimMount.hostPath("/x", "/y", false),
            ClaimMount.workspace("w", "/work", 0));
    assertThatThrownBy(
            () ->
                ClientCommands.mounts(
                    Args.parse(List.of("--mount", "/srv:/data:rx"), ClientCommands.CLAIM)))
        .isInstanceOf(UsageException.class);
    assertThatThrownBy(
            () ->
                ClientCommands.mounts(
                    Args.parse(List.of("--mount", "/srv:relative"), ClientCommands.CLAIM)))
        .isInstanceOf(UsageException.class)
        .hasMessageContaining("absolute");
  }

  @Test
  void listenAddressesAreParsedAndTurnedIntoClientUrls() {
    assertThat(DaemonCommands.parseListen("127.0.0.1:7777"))
        .isEqualTo(Map.entry("127.0.0.1", 7777));
    assertThat(DaemonCommands.parseListen(":8080")).isEqualTo(Map.entry("0.0.0.0", 8080));
    assertThat(DaemonCommands.clientUrl("0.0.0.0", 8080)).isEqualTo("http://127.0.0.1:8080");
    assertThatThrownBy(() -> DaemonCommands.parseListen("7777")).isInstanceOf(UsageException.class);
    assertThatThrownBy(() -> DaemonCommands.parseListen("h:99999"))
        .isInstanceOf(UsageException.class);
  }
}
