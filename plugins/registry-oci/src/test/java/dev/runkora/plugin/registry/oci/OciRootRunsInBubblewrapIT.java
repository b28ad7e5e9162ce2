package dev.runkora.plugin.registry.oci;

import static org.assertj.core.api.Assertions.assertThat;

import dev.runkora.conformance.registry.LocalTestRegistry;
import dev.runkora.spi.core.PluginConfig;
import dev.runkora.spi.registry.RegistryContext;
import dev.runkora.spi.registry.RegistrySettings;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The root unpacked from the real registry is a working root filesystem: bubblewrap runs its {@code
 * /bin/busybox} with it as {@code /}, read-only, through an applet link.
 */
class OciRootRunsInBubblewrapIT {
  @TempDir Path cache;

  @Test
  public void bubblewrapRunsTheImagesBusyboxFromTheUnpackedRoot() throws Exception {
    try (var registry =
        new OciRegistryProvider()
            .create(
                PluginConfig.empty(),
                new RegistryContext(
                    cache, RegistrySettings.defaults(), System.getLogger("test")))) {
      var root =
          registry.materialize(registry.resolve(LocalTestRegistry.busybox("latest")), m -> {});

      var process =
          new ProcessBuilder(
                  "bwrap",
                  "--ro-bind",
                  root.directory().toString(),
                  "/",
                  "--unshare-all",
                  "/bin/sh",
                  "-c",
                  "echo hello from $(basename $(readlink /bin/sh))")
              .redirectErrorStream(true)
              .start();
      var output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();

      assertThat(process.exitValue()).as(output).isZero();
      assertThat(output.strip()).isEqualTo("hello from busybox");
    }
  }
}
