package dev.runkora.plugin.runtime.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.runkora.spi.core.ErrorKind;
import dev.runkora.spi.core.KoraException;
import dev.runkora.spi.core.PluginConfig;
import dev.runkora.spi.runtime.RuntimeCapability;
import dev.runkora.spi.runtime.RuntimeContext;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProcessRuntimeProviderTest {

  @Test
  void providerIsNamedProcessAndDeclaresOnlyHostNetworkAndAdoption() throws IOException {
    var provider = new ProcessRuntimeProvider();

    assertThat(provider.name()).isEqualTo("process");
    assertThat(provider.capabilities())
        .containsExactlyInAnyOrder(RuntimeCapability.NETWORK_EGRESS, RuntimeCapability.ADOPT);
    try (var in =
        ProcessRuntimeProvider.class.getResourceAsStream(
            "/META-INF/services/dev.runkora.spi.runtime.RuntimeProvider")) {
      assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8).strip())
          .isEqualTo(ProcessRuntimeProvider.class.getName());
    }
  }

  @Test
  void anySettingIsInvalidArgument(@TempDir Path state) {
    var context = new RuntimeContext(state, System.getLogger("test"));

    assertThatThrownBy(
            () -> new ProcessRuntimeProvider().create(PluginConfig.of("isolation", "yes"), context))
        .isInstanceOfSatisfying(
            KoraException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.INVALID_ARGUMENT));
  }

  @Test
  void namesThatAreNotSandboxNamesAreNeverWalked(@TempDir Path state) {
    try (var runtime =
        new ProcessRuntimeProvider()
            .create(PluginConfig.empty(), new RuntimeContext(state, System.getLogger("test")))) {
      runtime.delete("../../escape");

      assertThatThrownBy(() -> runtime.stop("../x"))
          .isInstanceOfSatisfying(
              KoraException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.NOT_FOUND));
    }
  }
}
