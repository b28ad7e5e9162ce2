package dev.runkora.plugin.registry.ocilayout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.runkora.spi.core.ErrorKind;
import dev.runkora.spi.core.KoraException;
import dev.runkora.spi.core.PluginConfig;
import dev.runkora.spi.registry.RegistryContext;
import dev.runkora.spi.registry.RegistrySettings;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OciLayoutSettingsTest {
  @TempDir Path cache;
  @TempDir Path notALayout;

  private KoraException createFails(PluginConfig config) {
    var thrown = catchCreate(config);
    assertThat(thrown).isNotNull();
    return thrown;
  }

  private KoraException catchCreate(PluginConfig config) {
    try {
      new OciLayoutRegistryProvider()
          .create(
              config,
              new RegistryContext(cache, RegistrySettings.defaults(), System.getLogger("t")))
          .close();
      return null;
    } catch (KoraException e) {
      return e;
    }
  }

  @Test
  public void withoutAPathCreateIsRefused() {
    assertThat(createFails(PluginConfig.empty()).kind()).isEqualTo(ErrorKind.INVALID_ARGUMENT);
  }

  @Test
  public void aPathThatIsNotALayoutIsRefusedNamingIt() {
    var e = createFails(PluginConfig.of("path", notALayout.toString()));
    assertThat(e.kind()).isEqualTo(ErrorKind.INVALID_ARGUMENT);
    assertThat(e.getMessage()).contains(notALayout.toString());
  }

  @Test
  public void anUnknownSettingIsRefused() {
    assertThatThrownBy(
            () ->
                new OciLayoutRegistryProvider()
                    .create(
                        PluginConfig.of(
                            "path", TestImagesLayout.directory().toString(), "pth", "x"),
                        new RegistryContext(
                            cache, RegistrySettings.defaults(), System.getLogger("t"))))
        .isInstanceOf(KoraException.class)
        .hasMessageContaining("pth");
  }

  @Test
  public void servesTheLayoutsTagsOnly() {
    try (var registry =
        new OciLayoutRegistryProvider()
            .create(
                PluginConfig.of("path", TestImagesLayout.directory().toString()),
                new RegistryContext(cache, RegistrySettings.defaults(), System.getLogger("t")))) {
      assertThat(registry.serves("kora/test:good")).isTrue();
      assertThat(registry.serves("good")).isTrue();
      assertThat(registry.serves("kora/test:no-such-tag")).isFalse();
    }
  }
}
