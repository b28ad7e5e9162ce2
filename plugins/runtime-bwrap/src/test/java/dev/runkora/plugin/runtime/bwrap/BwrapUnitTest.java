package dev.runkora.plugin.runtime.bwrap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.runkora.spi.core.ErrorKind;
import dev.runkora.spi.core.KoraException;
import dev.runkora.spi.core.PluginConfig;
import dev.runkora.spi.runtime.RuntimeCapability;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The small pure parts: provider, settings, recorded state, mountinfo decoding. */
class BwrapUnitTest {

  @Test
  void providerIsNamedBwrapAndDeclaresEverythingButDiskLimits() throws IOException {
    var provider = new BwrapRuntimeProvider();

    assertThat(provider.name()).isEqualTo("bwrap");
    assertThat(provider.capabilities())
        .doesNotContain(RuntimeCapability.DISK_LIMIT)
        .contains(RuntimeCapability.MEMORY_LIMIT, RuntimeCapability.NETWORK_NONE);
    try (var in =
        BwrapRuntimeProvider.class.getResourceAsStream(
            "/META-INF/services/dev.runkora.spi.runtime.RuntimeProvider")) {
      assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8).strip())
          .isEqualTo(BwrapRuntimeProvider.class.getName());
    }
  }

  @Test
  void unknownSettingIsInvalidArgument() {
    assertThatThrownBy(() -> BwrapSettings.from(PluginConfig.of("cgroup-parnet", "x")))
        .isInstanceOfSatisfying(
            KoraException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.INVALID_ARGUMENT))
        .hasMessageContaining("cgroup-parnet");
  }

  @Test
  void cgroupParentMustBeOneName() {
    assertThatThrownBy(() -> BwrapSettings.from(PluginConfig.of("cgroup-parent", "../escape")))
        .isInstanceOfSatisfying(
            KoraException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.INVALID_ARGUMENT));
  }

  @Test
  void missingBinaryIsUnavailable() {
    var settings = BwrapSettings.from(PluginConfig.of("bwrap", "/nonexistent/bwrap"));

    assertThatThrownBy(settings::checkBinaries)
        .isInstanceOfSatisfying(
            KoraException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.UNAVAILABLE))
        .hasMessageContaining("/nonexistent/bwrap");
  }

  @Test
  void missingMkfifoWithoutNativeCallsIsUnavailableAndNamesTheNativeAccessFlag() {
    var settings =
        BwrapSettings.from(
            PluginConfig.of("native-calls", "false", "mkfifo", "/nonexistent/mkfifo"));

    assertThatThrownBy(settings::checkBinaries)
        .isInstanceOfSatisfying(
            KoraException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.UNAVAILABLE))
        .hasMessageContaining("/nonexistent/mkfifo")
        .hasMessageContaining("--enable-native-access=dev.runkora.plugin.runtime.bwrap");
  }

  @Test
  void stateSurvivesAStoreAndLoad(@TempDir Path dir) throws IOException {
    var state =
        new SandboxState(
            "s1",
            Instant.parse("2026-12-02T10:00:00Z"),
            4242,
            987654,
            true,
            Map.of("PATH", "/bin", "ODD", "a=b c\\d"),
            "/work");
    var file = dir.resolve("state.properties");

    state.store(file);

    assertThat(SandboxState.load(file)).isEqualTo(state);
    assertThat(dir.resolve("state.properties.tmp")).doesNotExist();
  }

  @Test
  void mountinfoEscapesAreDecoded() {
    assertThat(HostMounts.unescape("/state/with\\040space\\011tab"))
        .isEqualTo("/state/with space\ttab");
    assertThat(HostMounts.unescape("/plain\\x")).isEqualTo("/plain\\x");
  }

  @Test
  void startTimeOfThisProcessIsKnownAndOfANonexistentPidIsNot() {
    var self = ProcessHandle.current().pid();

    assertThat(ProcStat.startTicks(self)).isPresent();
    assertThat(ProcStat.isAlive(self, ProcStat.startTicks(self).getAsLong())).isTrue();
    assertThat(ProcStat.isAlive(self, ProcStat.startTicks(self).getAsLong() + 1)).isFalse();
    assertThat(ProcStat.startTicks(Integer.MAX_VALUE)).isEmpty();
    assertThat(Files.exists(Path.of("/proc/self/stat"))).isTrue();
  }
}
