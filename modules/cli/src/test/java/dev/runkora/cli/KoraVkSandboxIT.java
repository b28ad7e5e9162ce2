package dev.runkora.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code ./kora vk-sandbox} as a user runs it: the launcher starts module {@code dev.runkora.vk}
 * from {@code modules/cli/target/vk-lib} and {@code target/lib}, with the flags client-java needs.
 */
class KoraVkSandboxIT {
  private static final Path ROOT = findRoot();

  record Result(int exit, String out, String err) {}

  @BeforeAll
  static void needsTheVkLib() {
    assumeTrue(
        Files.isDirectory(ROOT.resolve("modules/cli/target/vk-lib")),
        "modules/cli/target/vk-lib is missing: package the CLI first");
  }

  @Test
  void versionPrintsTheVersionAndExitsZero() throws Exception {
    Result r = kora(List.of("vk-sandbox", "--version"));

    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out())
        .matches("vk-sandbox \\S+ \\(rev=\\S* built=\\S*\\)\n")
        .doesNotStartWith("vk-sandbox unknown");
    assertThat(r.err()).isEmpty();
  }

  @Test
  void helpListsVkSandboxsFlags() throws Exception {
    Result r = kora(List.of("vk-sandbox", "--help"));

    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out()).contains("--state-path").contains("--sandboxd-url").contains("--node-name");
  }

  @Test
  void withoutAStatePathItRefusesToStartWithVksMessage() throws Exception {
    Result r = kora(List.of("vk-sandbox", "--state-path="));

    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.out()).isEmpty();
    assertThat(r.err())
        .startsWith("vk-sandbox: --state-path (VK_STATE_PATH) is empty")
        .contains("set it to a file in a directory this user can write");
  }

  @Test
  void koraHelpListsVkSandbox() throws Exception {
    Result r = kora(List.of("help"));

    assertThat(r.exit()).isZero();
    assertThat(r.out()).contains("vk-sandbox");
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

  private static Result kora(List<String> args) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(ROOT.resolve("kora").toString());
    command.addAll(args);
    ProcessBuilder pb = new ProcessBuilder(command).directory(ROOT.toFile());
    pb.environment().remove("VK_STATE_PATH");
    // Maven built the CLI already; the launcher must not start a nested build.
    pb.environment().put("KORA_SKIP_BUILD", "1");
    Process p = pb.start();
    p.getOutputStream().close();
    CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> read(p.getErrorStream()));
    String out = read(p.getInputStream());
    if (!p.waitFor(2, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      throw new AssertionError("./kora " + args + " did not exit within 2 minutes");
    }
    return new Result(p.exitValue(), out, err.get());
  }

  private static String read(InputStream in) {
    try {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
