package dev.runkora.pluginhost;

import static org.assertj.core.api.Assertions.assertThat;

import dev.runkora.spi.autoscaler.AutoscalerProvider;
import dev.runkora.spi.core.PluginProvider;
import dev.runkora.spi.registry.RegistryProvider;
import dev.runkora.spi.runtime.RuntimeProvider;
import dev.runkora.spi.storage.StorageProvider;
import java.io.File;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Starts the plugin host the way a runtime image does: a fresh JVM with everything on the module
 * path, so built-in plugins are bound into the boot layer by the {@code uses} clauses.
 */
class PluginListLaunchTest {

  @TempDir Path plugins;

  private static String location(Class<?> type) {
    try {
      return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String staticPluginJar() {
    // The static autoscaler is a test dependency, on this JVM's class path.
    try {
      return location(
          Class.forName("dev.runkora.plugin.autoscaler.staticpool.StaticAutoscalerProvider"));
    } catch (ClassNotFoundException e) {
      throw new IllegalStateException("the static autoscaler is not a test dependency", e);
    }
  }

  private record Run(int exit, String output) {}

  private Run launch(String... args) throws Exception {
    var modulePath =
        Stream.of(
                location(PluginHost.class),
                location(PluginProvider.class),
                location(RuntimeProvider.class),
                location(RegistryProvider.class),
                location(StorageProvider.class),
                location(AutoscalerProvider.class),
                staticPluginJar())
            .distinct()
            .collect(Collectors.joining(File.pathSeparator));
    var command = new ArrayList<String>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(
        List.of(
            "--module-path",
            modulePath,
            "-m",
            "dev.runkora.pluginhost/" + PluginList.class.getName()));
    command.addAll(List.of(args));
    var process = new ProcessBuilder(command).redirectErrorStream(true).start();
    var output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    return new Run(process.exitValue(), output);
  }

  @Test
  void onTheModulePathABuiltInPluginIsInTheBootLayer() throws Exception {
    var run = launch();

    assertThat(run.exit()).as(run.output()).isZero();
    assertThat(run.output())
        .contains(
            "autoscaler static (module dev.runkora.plugin.autoscaler.staticpool, boot layer)");
  }

  @Test
  void aBrokenPluginInTheDirectoryIsPrintedAndTheExitCodeIsOne() throws Exception {
    var jar = FixtureJars.build("throwing", plugins).getFirst();

    var run = launch("--plugin-dir", plugins.toString());

    assertThat(run.exit()).as(run.output()).isEqualTo(1);
    assertThat(run.output())
        .contains("static (module dev.runkora.plugin.autoscaler.staticpool, boot layer)")
        .contains(
            "problem    autoscaler plugin fixture.throwing.ThrowingProvider in module"
                + " fixture.throwing ("
                + jar
                + ") could not be created: java.lang.IllegalStateException: this fixture fails on"
                + " purpose");
  }
}
