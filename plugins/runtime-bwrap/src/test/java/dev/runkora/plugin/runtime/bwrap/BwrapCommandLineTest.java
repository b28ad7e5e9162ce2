package dev.runkora.plugin.runtime.bwrap;

import static org.assertj.core.api.Assertions.assertThat;

import dev.runkora.spi.core.PluginConfig;
import dev.runkora.spi.runtime.MountSpec;
import dev.runkora.spi.runtime.NetworkMode;
import dev.runkora.spi.runtime.ResourceLimits;
import dev.runkora.spi.runtime.SandboxSpec;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BwrapCommandLineTest {

  private final BwrapSettings settings = BwrapSettings.from(PluginConfig.empty());
  private final SandboxLayout layout = SandboxLayout.of(Path.of("/state/sandboxes"), "s1");

  private static SandboxSpec spec(boolean writable, NetworkMode network, List<MountSpec> mounts) {
    return new SandboxSpec(
        "s1",
        Path.of("/images/base"),
        writable,
        mounts,
        ResourceLimits.none(),
        network,
        Map.of("LANG", "C.UTF-8"),
        "");
  }

  @Test
  void networkNoneUnsharesTheNetworkAndEgressDoesNot() {
    assertThat(BwrapCommandLine.create(settings, spec(false, NetworkMode.NONE, List.of()), layout))
        .contains("--unshare-net");
    assertThat(
            BwrapCommandLine.create(settings, spec(false, NetworkMode.EGRESS, List.of()), layout))
        .doesNotContain("--unshare-net");
  }

  @Test
  void readOnlyRootIsRemountedReadOnlyAfterTheBinds() {
    var argv = BwrapCommandLine.create(settings, spec(false, NetworkMode.NONE, List.of()), layout);
    var writable =
        BwrapCommandLine.create(settings, spec(true, NetworkMode.NONE, List.of()), layout);

    assertThat(Collections.indexOfSubList(argv, List.of("--remount-ro", "/")))
        .isGreaterThan(argv.indexOf("--bind"));
    assertThat(Collections.indexOfSubList(writable, List.of("--remount-ro", "/"))).isEqualTo(-1);
  }

  @Test
  void mountsFollowTheOverlayRootInOrderWithTheirMode() {
    var argv =
        BwrapCommandLine.create(
            settings,
            spec(
                false,
                NetworkMode.EGRESS,
                List.of(
                    MountSpec.readOnly(Path.of("/usr"), "/usr"),
                    MountSpec.readWrite(Path.of("/work/a"), "/workspace"))),
            layout);

    var root = Collections.indexOfSubList(argv, List.of("--bind", "/state/sandboxes/s1/root", "/"));
    var usr = Collections.indexOfSubList(argv, List.of("--ro-bind", "/usr", "/usr"));
    var workspace = Collections.indexOfSubList(argv, List.of("--bind", "/work/a", "/workspace"));
    assertThat(root).isNotNegative().isLessThan(usr);
    assertThat(usr).isLessThan(workspace);
  }

  @Test
  void linksBelowTheTopLevelWritableBindsAndRealDirectoriesStayBinds() throws Exception {
    var lower = java.nio.file.Files.createTempDirectory("kora-cmdline-");
    try {
      var usrBin = java.nio.file.Files.createDirectories(lower.resolve("host/usr/bin"));
      var link =
          java.nio.file.Files.createSymbolicLink(lower.resolve("host/bin"), Path.of("usr/bin"));
      var spec =
          new SandboxSpec(
              "s1",
              java.nio.file.Files.createDirectories(lower.resolve("root")),
              false,
              List.of(
                  MountSpec.readOnly(usrBin.getParent(), usrBin.getParent().toString()),
                  MountSpec.readOnly(link, link.toString()),
                  MountSpec.readWrite(link, "/work")),
              ResourceLimits.none(),
              NetworkMode.NONE,
              Map.of(),
              "");

      // Not top-level in this temporary tree, so it stays a bind: only /x links qualify.
      assertThat(BwrapCommandLine.linkIntoAnotherBind(spec, spec.mounts().get(1))).isEmpty();
      assertThat(BwrapCommandLine.linkIntoAnotherBind(spec, spec.mounts().get(2))).isEmpty();
      assertThat(BwrapCommandLine.linkIntoAnotherBind(spec, spec.mounts().get(0))).isEmpty();
    } finally {
      try (var paths = java.nio.file.Files.walk(lower)) {
        for (var path : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
          java.nio.file.Files.delete(path);
        }
      }
    }
  }

  @Test
  void hostBinOnAMergedUsrHostIsALinkIntoTheUsrBind() {
    org.junit.jupiter.api.Assumptions.assumeTrue(
        java.nio.file.Files.isSymbolicLink(Path.of("/bin")), "not a merged-usr host");
    var argv =
        BwrapCommandLine.create(
            settings,
            spec(
                false,
                NetworkMode.NONE,
                List.of(
                    MountSpec.readOnly(Path.of("/usr"), "/usr"),
                    MountSpec.readOnly(Path.of("/bin"), "/bin"),
                    MountSpec.readOnly(Path.of("/etc"), "/etc"))),
            layout);

    assertThat(Collections.indexOfSubList(argv, List.of("--symlink", "usr/bin", "/bin")))
        .isNotNegative();
    assertThat(Collections.indexOfSubList(argv, List.of("--ro-bind", "/usr", "/usr")))
        .isNotNegative();
    assertThat(Collections.indexOfSubList(argv, List.of("--ro-bind", "/etc", "/etc")))
        .isNotNegative();
    assertThat(Collections.indexOfSubList(argv, List.of("--ro-bind", "/bin", "/bin")))
        .isEqualTo(-1);
  }

  @Test
  void agentScriptQuotesEveryWordAndExecsTheResolvedProgramWithItsArgvZero() {
    var script =
        BwrapCommandLine.agentScript(
            "/it's here", Map.of("A", "x'y"), "/usr/bin/printf", List.of("printf", "%s", "$HOME"));

    assertThat(script)
        .isEqualTo(
            "cd -- '/it'\\''s here' || exit 126\n"
                + "unset SHLVL OLDPWD PWD PATH\n"
                + "export A='x'\\''y'\n"
                + "exec -a 'printf' '/usr/bin/printf' '%s' '$HOME'\n");
  }

  @Test
  void agentScriptPassesNamesTheShellCannotExportThroughEnv() {
    var script = BwrapCommandLine.agentScript("/", Map.of("a-b", "1"), "/bin/env", List.of("env"));

    assertThat(script).endsWith("exec /dev/.kora/busybox env -i 'a-b=1' '/bin/env'\n");
  }

  @Test
  void sandboxRunsTheKeepAliveWithItsBaseEnvironment() {
    var argv = BwrapCommandLine.create(settings, spec(false, NetworkMode.NONE, List.of()), layout);

    assertThat(argv.subList(argv.size() - BwrapCommandLine.KEEP_ALIVE.size(), argv.size()))
        .isEqualTo(BwrapCommandLine.KEEP_ALIVE);
    assertThat(Collections.indexOfSubList(argv, List.of("--cap-drop", "CAP_SYS_ADMIN")))
        .isNotNegative();
    assertThat(argv.get(argv.size() - BwrapCommandLine.KEEP_ALIVE.size() - 1)).isEqualTo("--");
    assertThat(Collections.indexOfSubList(argv, List.of("--setenv", "LANG", "C.UTF-8")))
        .isNotNegative();
    assertThat(Collections.indexOfSubList(argv, List.of("--setenv", "PATH"))).isNotNegative();
    assertThat(argv).contains("--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts");
  }

  @Test
  void liveMountEntersEveryNamespaceAndTheSandboxsRoot() {
    var state = new SandboxState("s1", Instant.EPOCH, 4242, 1, true, Map.of(), "");

    assertThat(BwrapCommandLine.inside(settings, state))
        .startsWith("/usr/bin/nsenter", "--target", "4242")
        .contains("--user", "--mount", "--pid", "--net", "--root", "--wd=/proc/4242/root")
        .endsWith("--");
  }

  @Test
  void sandboxWithoutAUserNamespaceIsNotEnteredWithOne() {
    var state = new SandboxState("s1", Instant.EPOCH, 4242, 1, false, Map.of(), "");

    assertThat(BwrapCommandLine.enter(settings, state)).doesNotContain("--user");
  }
}
