package dev.runkora.pluginhost;

import dev.runkora.spi.autoscaler.AutoscalerProvider;
import dev.runkora.spi.core.PluginProvider;
import dev.runkora.spi.registry.RegistryProvider;
import dev.runkora.spi.runtime.RuntimeProvider;
import dev.runkora.spi.storage.StorageProvider;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.spi.ToolProvider;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Builds the fixture plugins of {@code src/test/fixtures} into jars at test time, with the JDK's
 * own {@code javac} and {@code jar}. A fixture is a folder of module source folders (each named
 * after its module), or of one folder without {@code module-info.java}, which becomes a plain jar.
 */
final class FixtureJars {

  private static final Path FIXTURES = Path.of("src/test/fixtures");

  private FixtureJars() {}

  /**
   * Compiles a fixture and writes one jar per module into {@code outputDirectory}.
   *
   * @return the jars, by module name
   */
  static List<Path> build(String fixture, Path outputDirectory) {
    try {
      var source = FIXTURES.resolve(fixture);
      var classes = Files.createTempDirectory("fixture-classes-");
      Files.createDirectories(outputDirectory);
      List<Path> moduleDirs;
      try (var list = Files.list(source)) {
        moduleDirs = list.filter(Files::isDirectory).sorted().toList();
      }
      boolean modular =
          moduleDirs.stream().allMatch(d -> Files.exists(d.resolve("module-info.java")));
      var args = new ArrayList<String>(List.of("-d", classes.toString(), "-Xlint:none"));
      if (modular) {
        args.addAll(List.of("--module-path", spiPath(), "--module-source-path", source.toString()));
        args.add("--module");
        args.add(
            moduleDirs.stream()
                .map(d -> d.getFileName().toString())
                .collect(Collectors.joining(",")));
      } else {
        args.addAll(List.of("--class-path", spiPath()));
        for (var dir : moduleDirs) {
          args.addAll(javaFiles(dir));
        }
      }
      run("javac", args);
      var jars = new ArrayList<Path>();
      for (var dir : moduleDirs) {
        var name = dir.getFileName().toString();
        var moduleClasses = modular ? classes.resolve(name) : classes;
        copyResources(dir, moduleClasses);
        var jar = outputDirectory.resolve(name + ".jar");
        run(
            "jar",
            List.of("--create", "--file", jar.toString(), "-C", moduleClasses.toString(), "."));
        jars.add(jar);
      }
      return jars;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String spiPath() {
    return Stream.of(
            PluginProvider.class,
            RuntimeProvider.class,
            RegistryProvider.class,
            StorageProvider.class,
            AutoscalerProvider.class)
        .map(FixtureJars::location)
        .distinct()
        .collect(Collectors.joining(java.io.File.pathSeparator));
  }

  private static String location(Class<?> type) {
    try {
      return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  private static List<String> javaFiles(Path dir) throws IOException {
    try (var walk = Files.walk(dir)) {
      return walk.filter(p -> p.toString().endsWith(".java")).map(Path::toString).sorted().toList();
    }
  }

  private static void copyResources(Path sourceDir, Path classes) throws IOException {
    try (var walk = Files.walk(sourceDir)) {
      for (var file : walk.filter(Files::isRegularFile).toList()) {
        if (file.toString().endsWith(".java")) {
          continue;
        }
        var target = classes.resolve(sourceDir.relativize(file).toString());
        Files.createDirectories(target.getParent());
        Files.copy(file, target);
      }
    }
  }

  private static void run(String tool, List<String> args) {
    var provider =
        ToolProvider.findFirst(tool)
            .orElseThrow(() -> new IllegalStateException("the JDK tool " + tool + " is missing"));
    var out = new StringWriter();
    int code =
        provider.run(
            new PrintWriter(out, true), new PrintWriter(out, true), args.toArray(String[]::new));
    if (code != 0) {
      throw new IllegalStateException(tool + " failed (" + code + "): " + out);
    }
  }
}
