package dev.runkora.vk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The systemd unit and env template of seed 001, checked with the real systemd-analyze. */
class PackagingIT {
  @TempDir Path temp;

  static Path packaging() {
    Path p = Path.of("packaging");
    return Files.isDirectory(p) ? p : Path.of("modules/vk/packaging");
  }

  @Test
  void systemdAnalyzeVerifyAcceptsTheUnit() throws Exception {
    Path tool = Path.of("/usr/bin/systemd-analyze");
    assumeTrue(Files.isExecutable(tool), "systemd-analyze is not installed");
    // verify checks that ExecStart exists: point it at a stand-in, the rest of the unit unchanged.
    Path binary = temp.resolve("vk-sandbox");
    Files.writeString(binary, "#!/bin/sh\n");
    Files.setPosixFilePermissions(binary, PosixFilePermissions.fromString("rwxr-xr-x"));
    String unit = Files.readString(packaging().resolve("vk-sandbox.service"));
    Path copy = temp.resolve("vk-sandbox.service");
    Files.writeString(copy, unit.replace("/usr/local/bin/vk-sandbox", binary.toString()));
    Process p =
        new ProcessBuilder(tool.toString(), "verify", copy.toString())
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor()).as(out).isZero();
    assertThat(out).doesNotContain("vk-sandbox.service:");
  }

  @Test
  void theUnitAndTheEnvTemplateSayWhatSeed001Says() throws Exception {
    String unit = Files.readString(packaging().resolve("vk-sandbox.service"));
    assertThat(unit)
        .contains("After=network-online.target sandboxd.service")
        .contains("ConditionPathExists=/etc/cocoon/kubeconfig")
        .contains("ConditionPathExists=/etc/vk-sandbox/env")
        .contains("WorkingDirectory=/var/lib/vk-sandbox")
        .contains("EnvironmentFile=/etc/vk-sandbox/env")
        .contains("Restart=always")
        .contains("RestartSec=5s");
    String env = Files.readString(packaging().resolve("env.example"));
    assertThat(env)
        .contains("VK_NODE_NAME=<hostname>-sandboxd")
        .contains("VK_LISTEN_ADDR=:10260")
        .contains("SANDBOXD_URL=http://127.0.0.1:7777")
        .contains("SANDBOXD_TOKEN_FILE=/etc/vk-sandbox/sandboxd-token")
        .contains("VK_STATE_PATH=/var/lib/vk-sandbox/claims.json");
  }
}
