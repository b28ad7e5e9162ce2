package dev.runkora.pluginhost;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.runkora.spi.core.ErrorKind;
import dev.runkora.spi.core.KoraException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PluginHostTest {

  @TempDir Path plugins;

  private Path jar(String fixture) {
    return FixtureJars.build(fixture, plugins).getFirst();
  }

  private PluginHost load() {
    return PluginHost.load(Optional.of(plugins));
  }

  /** Returns what was found in the plugin directory (built-in plugins are left out). */
  private List<PluginInfo> fromDirectory(PluginHost host, ExtensionPoint<?> point) {
    return host.plugins(point).stream()
        .filter(p -> p.location().startsWith(plugins.toString()))
        .toList();
  }

  private List<PluginInfo> fromDirectory(PluginHost host) {
    return host.plugins().stream()
        .filter(p -> p.location().startsWith(plugins.toString()))
        .toList();
  }

  @Test
  void aGoodPluginJarIsSelectedByNameAndListedWithItsJar() {
    var jar = jar("good");

    var host = load();
    var provider = host.select(ExtensionPoint.RUNTIME, "fixture-good");

    assertThat(provider.name()).isEqualTo("fixture-good");
    assertThat(provider.getClass().getModule().getName()).isEqualTo("fixture.good");
    assertThat(provider.getClass().getModule().getLayer()).isNotSameAs(ModuleLayer.boot());
    assertThat(host.problems()).isEmpty();
    assertThat(host.plugins(ExtensionPoint.RUNTIME))
        .singleElement()
        .satisfies(
            info -> {
              assertThat(info.module()).isEqualTo("fixture.good");
              assertThat(info.location()).isEqualTo(jar.toString());
              assertThat(info.description()).isEqualTo("A well-formed fixture plugin.");
              assertThat(info.extensionPoint()).isEqualTo("runtime");
            });
  }

  @Test
  void anUnknownNameFailsNamingEveryProviderFoundAndWhere() {
    var jar = jar("good");

    assertThatThrownBy(() -> load().select(ExtensionPoint.RUNTIME, "fixture-goood"))
        .isInstanceOfSatisfying(
            KoraException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.INVALID_ARGUMENT))
        .hasMessage(
            "no runtime plugin named 'fixture-goood'; found: fixture-good (module fixture.good, "
                + jar
                + ")");
  }

  @Test
  void anUnknownNameWithNothingInstalledSaysNoneWasFound() {
    assertThatThrownBy(() -> PluginHost.bootLayerOnly().select(ExtensionPoint.STORAGE, "local"))
        .isInstanceOf(KoraException.class)
        .hasMessage("no storage plugin named 'local'; found: none");
  }

  @Test
  void twoJarsWithTheSameNameFailSelectionNamingBothJars() {
    var a = jar("twin-a");
    var b = jar("twin-b");

    var host = load();

    assertThat(fromDirectory(host, ExtensionPoint.AUTOSCALER)).hasSize(2);
    assertThatThrownBy(() -> host.select(ExtensionPoint.AUTOSCALER, "twin"))
        .isInstanceOfSatisfying(
            KoraException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.INVALID_ARGUMENT))
        .hasMessage(
            "2 autoscaler plugins are named 'twin'; keep only one of: twin (module fixture.twin.a, "
                + a
                + "), twin (module fixture.twin.b, "
                + b
                + ")");
  }

  @Test
  void providersReturnsEveryProviderOfAnExtensionPointOrFailsOnADuplicate() {
    jar("good");
    FixtureJars.build("with-library", plugins.resolve("with-library"));
    assertThat(load().providers(ExtensionPoint.RUNTIME))
        .extracting(p -> p.name())
        .containsExactly("fixture-good");

    jar("twin-a");
    jar("twin-b");
    assertThatThrownBy(() -> load().providers(ExtensionPoint.AUTOSCALER))
        .isInstanceOf(KoraException.class)
        .hasMessageContaining("are named 'twin'");
  }

  @Test
  void aJarWithoutAProviderIsAProblemThatNamesTheJarAndItsModule() {
    var empty = jar("empty");
    jar("good");

    var host = load();

    assertThat(host.problems())
        .singleElement()
        .satisfies(
            problem -> {
              assertThat(problem.location()).isEqualTo(empty.toString());
              assertThat(problem.extensionPoint()).isEmpty();
              assertThat(problem.message())
                  .startsWith(
                      "plugin "
                          + empty
                          + " (module fixture.empty) provides none of kora's extension points");
            });
    // The empty jar might have been meant as any plugin, so no selection goes ahead.
    assertThatThrownBy(() -> host.select(ExtensionPoint.RUNTIME, "fixture-good"))
        .isInstanceOf(KoraException.class)
        .hasMessageStartingWith(
            "cannot select the runtime plugin 'fixture-good' because 1 plugin(s) could not be"
                + " loaded: plugin "
                + empty
                + " (module fixture.empty) provides none");
  }

  @Test
  void aProviderWhoseConstructorThrowsIsReportedWithItsModuleJarAndCause() {
    var throwing = jar("throwing");
    jar("good");

    var host = load();

    assertThat(host.problems())
        .singleElement()
        .satisfies(
            problem -> {
              assertThat(problem.extensionPoint()).contains("autoscaler");
              assertThat(problem.message())
                  .isEqualTo(
                      "autoscaler plugin fixture.throwing.ThrowingProvider in module"
                          + " fixture.throwing ("
                          + throwing
                          + ") could not be created: java.lang.IllegalStateException: this"
                          + " fixture fails on purpose");
            });
    assertThatThrownBy(() -> host.select(ExtensionPoint.AUTOSCALER, "static"))
        .isInstanceOf(KoraException.class)
        .hasMessageContaining("could not be created: java.lang.IllegalStateException");
    // A broken autoscaler does not stop another extension point's plugin from being selected.
    assertThat(host.select(ExtensionPoint.RUNTIME, "fixture-good").name())
        .isEqualTo("fixture-good");
  }

  @Test
  void aProviderWithAMalformedNameIsAProblem() {
    jar("bad-name");

    var host = load();

    assertThat(fromDirectory(host)).isEmpty();
    assertThat(host.problems())
        .singleElement()
        .satisfies(
            problem ->
                assertThat(problem.message())
                    .contains("fixture.badname.BadNameProvider")
                    .contains("has the name 'Bad Name', which does not match [a-z][a-z0-9-]*"));
  }

  @Test
  void aSubDirectoryIsOnePluginWithItsLibraries() throws Exception {
    var directory = plugins.resolve("with-library");
    FixtureJars.build("with-library", directory);

    var host = load();
    var provider = host.select(ExtensionPoint.STORAGE, "fixture-storage");

    assertThat(host.problems()).isEmpty();
    assertThat(provider.getClass().getModule().getLayer().modules())
        .extracting(Module::getName)
        .containsExactlyInAnyOrder("fixture.library", "fixture.storage");
    assertThat(host.plugins(ExtensionPoint.STORAGE).getFirst().location())
        .isEqualTo(directory.resolve("fixture.storage.jar").toString());
  }

  @Test
  void eachPluginJarGetsItsOwnLayer() {
    jar("twin-a");
    jar("good");

    var host = load();

    var runtime = host.select(ExtensionPoint.RUNTIME, "fixture-good");
    var autoscaler = host.select(ExtensionPoint.AUTOSCALER, "twin");
    assertThat(runtime.getClass().getModule().getLayer())
        .isNotSameAs(autoscaler.getClass().getModule().getLayer());
    assertThat(runtime.getClass().getModule().getLayer().parents())
        .containsExactly(ModuleLayer.boot());
  }

  @Test
  void aPlainJarWithServiceFileLoadsAsAnAutomaticModule() {
    jar("plain");

    var host = load();

    assertThat(host.problems()).isEmpty();
    assertThat(host.select(ExtensionPoint.AUTOSCALER, "plain").name()).isEqualTo("plain");
    assertThat(fromDirectory(host, ExtensionPoint.AUTOSCALER).getFirst().module())
        .isEqualTo("fixture.plain");
  }

  @Test
  void aJarThatCannotBeResolvedIsAProblemNamingTheMissingModule() {
    // The plugin of with-library without its library: its module cannot be resolved.
    var built = FixtureJars.build("with-library", plugins.resolve("build"));
    var lonely = plugins.resolve("lonely");
    try {
      Files.createDirectories(lonely);
      Files.move(built.get(1), lonely.resolve("fixture.storage.jar"));
      deleteTree(plugins.resolve("build"));
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }

    var host = load();

    assertThat(host.problems())
        .singleElement()
        .satisfies(
            problem ->
                assertThat(problem.message())
                    .startsWith("plugin " + lonely + " cannot be loaded as a module layer: ")
                    .contains("fixture.library"));
  }

  @Test
  void otherFilesInThePluginDirectoryAreIgnored() throws Exception {
    Files.writeString(plugins.resolve("README.txt"), "not a plugin");
    Files.writeString(plugins.resolve(".hidden.jar"), "not a jar");

    var host = load();

    assertThat(host.problems()).isEmpty();
    assertThat(fromDirectory(host)).isEmpty();
  }

  @Test
  void aMissingPluginDirectoryFailsClearly() {
    var missing = plugins.resolve("nowhere");

    assertThatThrownBy(() -> PluginHost.load(Optional.of(missing)))
        .isInstanceOfSatisfying(
            KoraException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.INVALID_ARGUMENT))
        .hasMessage("plugin directory " + missing + " does not exist or is not a directory");
  }

  @Test
  void aCorruptJarIsAProblemNamingTheJar() throws Exception {
    var corrupt = plugins.resolve("corrupt.jar");
    Files.writeString(corrupt, "this is not a zip file");

    var host = load();

    assertThat(host.problems())
        .singleElement()
        .satisfies(
            problem ->
                assertThat(problem.message())
                    .startsWith("plugin " + corrupt + " cannot be loaded as a module layer"));
  }

  private static void deleteTree(Path root) throws java.io.IOException {
    try (var walk = Files.walk(root)) {
      for (var p : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }
}
