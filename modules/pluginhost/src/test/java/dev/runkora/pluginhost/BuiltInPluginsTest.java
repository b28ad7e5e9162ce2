package dev.runkora.pluginhost;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.runkora.spi.core.KoraException;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Built-in plugins: the {@code static} autoscaler is a test dependency, so it is found outside the
 * plugin directory (surefire puts it on the class path; a runtime image puts it on the module path,
 * where the location reads "boot layer").
 */
class BuiltInPluginsTest {

  @TempDir Path plugins;

  @Test
  void aBuiltInPluginIsFoundAndSelectedWithoutAPluginDirectory() {
    var host = PluginHost.bootLayerOnly();

    var provider = host.select(ExtensionPoint.AUTOSCALER, "static");

    assertThat(provider.name()).isEqualTo("static");
    assertThat(host.plugins(ExtensionPoint.AUTOSCALER))
        .singleElement()
        .satisfies(
            info -> {
              assertThat(info.location()).isIn(PluginHost.BOOT_LAYER, PluginHost.CLASS_PATH);
              assertThat(info.capabilities()).containsExactly("PLACEHOLDERS", "WARM_POOL");
            });
    assertThat(host.problems()).isEmpty();
  }

  @Test
  void aMisspeltNameListsTheBuiltInPluginAndWhereItIs() {
    var host = PluginHost.bootLayerOnly();
    var where = host.plugins(ExtensionPoint.AUTOSCALER).getFirst();

    assertThatThrownBy(() -> host.select(ExtensionPoint.AUTOSCALER, "statik"))
        .isInstanceOf(KoraException.class)
        .hasMessage(
            "no autoscaler plugin named 'statik'; found: static (module %s, %s)"
                .formatted(where.module(), where.location()));
  }

  @Test
  void aPluginJarThatReusesABuiltInNameIsADuplicateNamingBoth() {
    var jar = FixtureJars.build("static-again", plugins).getFirst();
    var host = PluginHost.load(Optional.of(plugins));
    var builtIn =
        host.plugins(ExtensionPoint.AUTOSCALER).stream()
            .filter(p -> !p.location().equals(jar.toString()))
            .findFirst()
            .orElseThrow();

    assertThatThrownBy(() -> host.select(ExtensionPoint.AUTOSCALER, "static"))
        .isInstanceOf(KoraException.class)
        .hasMessageStartingWith("2 autoscaler plugins are named 'static'; keep only one of: ")
        .hasMessageContaining(builtIn.where())
        .hasMessageContaining("static (module fixture.staticagain, " + jar + ")");
  }
}
