package dev.runkora.vk;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** vk-sandbox as its own JVM, launched from the module path the way a runtime image does. */
class MainIT {
  @TempDir Path temp;

  record Run(int exit, String output) {}

  static Run run(Map<String, String> env, String... args) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("--module-path");
    command.add(System.getProperty("jdk.module.path"));
    command.add("--add-exports");
    command.add("okhttp3/okhttp3.internal.tls=io.kubernetes.client.java.api");
    command.add("--add-exports");
    command.add("okhttp3/okhttp3.internal.http=io.kubernetes.client.java.api");
    command.add("-m");
    command.add("dev.runkora.vk/dev.runkora.vk.Main");
    command.addAll(List.of(args));
    ProcessBuilder b = new ProcessBuilder(command).redirectErrorStream(true);
    b.environment().remove("KUBECONFIG");
    b.environment().remove("VK_STATE_PATH");
    b.environment().putAll(env);
    Process p = b.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    return new Run(p.waitFor(), out);
  }

  @Test
  void versionPrintsTheVersionLine() throws Exception {
    Run r = run(Map.of(), "--version");
    assertThat(r.exit()).as(r.output()).isZero();
    assertThat(r.output()).matches("(?s)vk-sandbox \\S+ \\(rev=\\S+ built=\\S+\\)\\s*");
  }

  @Test
  void anEmptyStatePathIsRefusedWithWhatToDo() throws Exception {
    Run r = run(Map.of("VK_STATE_PATH", ""));
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.output()).contains("VK_STATE_PATH").contains("directory this user can write");
  }

  @Test
  void anUnwritableStateDirectoryIsRefusedBeforeAnythingElse() throws Exception {
    Path file = temp.resolve("not-a-directory");
    Files.writeString(file, "x");
    Run r = run(Map.of(), "--state-path", file.resolve("claims.json").toString());
    assertThat(r.exit()).isEqualTo(1);
    assertThat(r.output()).contains("claims state is not writable").contains("VK_STATE_PATH");
  }

  @Test
  void withoutKubernetesCredentialsItSaysSo() throws Exception {
    Run r = run(Map.of(), "--state-path", temp.resolve("state/claims.json").toString());
    assertThat(r.exit()).isEqualTo(1);
    assertThat(r.output()).contains("KUBECONFIG");
  }
}
