package dev.runkora.plugin.registry.oci;

import static org.assertj.core.api.Assertions.assertThat;

import dev.runkora.conformance.registry.LocalTestRegistry;
import dev.runkora.spi.core.PluginConfig;
import dev.runkora.spi.registry.RegistryContext;
import dev.runkora.spi.registry.RegistrySettings;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two images that share their bottom layer, from the real registry: the upper layer's whiteout
 * (written by umoci) removes {@code /bin/vi}, and the shared layer is fetched once.
 */
class OciLayeredImageIT {

  @TempDir Path cache;

  @Test
  public void anUpperLayersWhiteoutRemovesAFileAndEvictKeepsTheSharedLayer() throws Exception {
    try (var registry =
        new OciRegistryProvider()
            .create(
                PluginConfig.empty(),
                new RegistryContext(
                    cache, RegistrySettings.defaults(), System.getLogger("test")))) {
      var latest =
          registry.materialize(registry.resolve(LocalTestRegistry.busybox("latest")), m -> {});
      var layered =
          registry.materialize(registry.resolve(LocalTestRegistry.busybox("layered")), m -> {});

      assertThat(Files.isSymbolicLink(latest.directory().resolve("bin/vi"))).isTrue();
      assertThat(layered.directory().resolve("bin/vi")).doesNotExist();
      assertThat(layered.directory().resolve("bin/busybox")).isRegularFile().isExecutable();
      assertThat(layered.directory().resolve("etc/kora-layer")).hasContent("kora test layer");
      assertThat(layered.env()).containsEntry("PATH", "/bin");
      // config + shared layer + upper layer + the other config: the shared layer is stored once.
      try (var blobs = Files.list(cache.resolve("blobs/sha256"))) {
        assertThat(blobs.count()).isEqualTo(4);
      }

      // Evicting the upper image keeps what the other cached image still uses.
      registry.evict(layered.reference());
      assertThat(registry.isWarm(layered.reference())).isFalse();
      assertThat(registry.isWarm(latest.reference())).isTrue();
      try (var blobs = Files.list(cache.resolve("blobs/sha256"))) {
        assertThat(blobs.count()).isEqualTo(2);
      }
      assertThat(latest.directory().resolve("bin/busybox")).isRegularFile();
    }
  }
}
