package dev.runkora.plugin.registry.host;

import static org.assertj.core.api.Assertions.assertThat;

import dev.runkora.spi.core.ErrorKind;
import dev.runkora.spi.core.KoraException;
import dev.runkora.spi.core.PluginConfig;
import dev.runkora.spi.registry.RegistryContext;
import dev.runkora.spi.registry.RegistrySettings;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How the host's folders become binds and links, on a made-up host tree. */
class HostRootLayoutTest {
  @TempDir Path host;
  @TempDir Path cache;

  private dev.runkora.spi.registry.ImageRegistry open() {
    return new HostRegistryProvider()
        .create(
            PluginConfig.of("hostRoot", host.toString()),
            new RegistryContext(cache, RegistrySettings.defaults(), System.getLogger("t")));
  }

  @Test
  public void mergedUsrFoldersBecomeLinksInTheRootAndOnlyRealFoldersAreBound() throws Exception {
    Files.createDirectories(host.resolve("usr/bin"));
    Files.createDirectories(host.resolve("etc"));
    Files.createDirectories(host.resolve("lib64"));
    Files.createSymbolicLink(host.resolve("bin"), Path.of("usr/bin"));
    Files.createSymbolicLink(host.resolve("lib"), Path.of("usr/lib"));

    try (var registry = open()) {
      var root = registry.materialize(registry.resolve("host"), m -> {});

      assertThat(root.readOnlyBinds())
          .containsExactly(
              java.util.Map.entry(host.resolve("usr"), "/usr"),
              java.util.Map.entry(host.resolve("lib64"), "/lib64"),
              java.util.Map.entry(host.resolve("etc"), "/etc"));
      assertThat(Files.readSymbolicLink(root.directory().resolve("bin")))
          .isEqualTo(Path.of("usr/bin"));
      assertThat(Files.readSymbolicLink(root.directory().resolve("lib")))
          .isEqualTo(Path.of("usr/lib"));
      assertThat(root.directory().resolve("usr")).isEmptyDirectory();
      assertThat(root.directory().resolve("sbin")).doesNotExist();
      assertThat(root.digest()).isEqualTo("host");
    }
  }

  @Test
  public void aHostWithoutUsrIsUnavailable() {
    try {
      open().close();
      throw new AssertionError("created without /usr");
    } catch (KoraException e) {
      assertThat(e.kind()).isEqualTo(ErrorKind.UNAVAILABLE);
    }
  }

  @Test
  public void onlyTheTemplateHostIsServed() throws Exception {
    Files.createDirectories(host.resolve("usr"));
    try (var registry = open()) {
      assertThat(registry.serves("host")).isTrue();
      assertThat(registry.serves("busybox")).isFalse();
      try {
        registry.resolve("busybox");
        throw new AssertionError("resolved busybox");
      } catch (KoraException e) {
        assertThat(e.kind()).isEqualTo(ErrorKind.INVALID_ARGUMENT);
      }
    }
  }
}
