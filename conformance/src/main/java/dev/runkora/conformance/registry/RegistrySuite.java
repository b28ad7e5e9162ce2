package dev.runkora.conformance.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.runkora.spi.core.ErrorKind;
import dev.runkora.spi.core.KoraException;
import dev.runkora.spi.core.PluginConfig;
import dev.runkora.spi.registry.ImageRegistry;
import dev.runkora.spi.registry.RegistryCapability;
import dev.runkora.spi.registry.RegistryContext;
import dev.runkora.spi.registry.RegistryProvider;
import dev.runkora.spi.registry.RegistrySettings;
import dev.runkora.spi.registry.RootFilesystem;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * What the registry suites share: the provider under test, a live registry on a fresh cache
 * directory before each test, and checks of the cache on disk.
 *
 * <p>A plugin's test class extends each suite and names an image it serves ({@link #image()}) and
 * an executable in it. Plugins that can serve the small images of {@link TestImages} return their
 * references from {@link #testImage(String)}; the tests that need them are skipped otherwise. Which
 * tests run follows the declared capabilities; an undeclared capability with a call of its own is
 * checked for its {@link ErrorKind#UNSUPPORTED} rejection instead.
 *
 * <p>Cache layout MUST (checked after every refused pull): nothing is left in a {@code tmp}
 * directory of the cache, and every file in a {@code blobs/sha256} directory holds the content its
 * name is the digest of.
 */
public abstract class RegistrySuite {

  /** The registry under test, made before each test. */
  protected ImageRegistry registry;

  /** The cache directory the registry was made with. */
  protected Path cacheDirectory;

  /** Returns the provider under test. */
  protected abstract RegistryProvider provider();

  /** Returns the reference of an image the plugin serves. */
  protected abstract String image();

  /** Returns an absolute path inside {@link #image()} that must be an executable file. */
  protected abstract String executableInImage();

  /** Returns the plugin's configuration; empty by default. */
  protected PluginConfig config() {
    return PluginConfig.empty();
  }

  /** Returns the registry settings; the defaults by default. */
  protected RegistrySettings settings() {
    return RegistrySettings.defaults();
  }

  /**
   * Returns the reference under which the plugin serves a {@link TestImages} tag, or empty when it
   * cannot serve them.
   */
  protected Optional<String> testImage(String tag) {
    return Optional.empty();
  }

  /** Makes the registry on a fresh cache directory (mode 0700, as the host makes it). */
  @BeforeEach
  public void createRegistry() throws IOException {
    cacheDirectory =
        Files.createTempDirectory(
            "kora-registry-suite-",
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    registry = openRegistry();
  }

  /** Closes the registry and deletes its cache. */
  @AfterEach
  public void closeRegistry() throws IOException {
    if (registry != null) {
      registry.close();
      registry.close(); // close is idempotent
    }
    deleteTree(cacheDirectory);
  }

  /** Makes another registry on the same cache directory, as after a restart. */
  protected ImageRegistry openRegistry() {
    return provider()
        .create(
            config(),
            new RegistryContext(
                cacheDirectory, settings(), System.getLogger("dev.runkora.conformance.registry")));
  }

  /** Returns whether the provider declares a capability. */
  protected boolean has(RegistryCapability capability) {
    return provider().capabilities().contains(capability);
  }

  /** Asserts that a call fails with a {@link KoraException} of a kind. */
  protected static void assertFailsWith(ErrorKind kind, ThrowingCallable call) {
    assertThatThrownBy(call)
        .isInstanceOf(KoraException.class)
        .satisfies(e -> assertThat(((KoraException) e).kind()).as(e.getMessage()).isEqualTo(kind));
  }

  /**
   * Returns where a sandbox path of a root filesystem is on the host: under the longest read-only
   * bind that covers it, else under the root directory.
   */
  protected static Path locate(RootFilesystem root, String sandboxPath) {
    Map.Entry<Path, String> best = null;
    for (var bind : root.binds()) {
      var target = bind.getValue();
      if ((sandboxPath.equals(target) || sandboxPath.startsWith(target + "/"))
          && (best == null || target.length() > best.getValue().length())) {
        best = bind;
      }
    }
    if (best != null) {
      var rest = sandboxPath.substring(best.getValue().length()).replaceFirst("^/+", "");
      return rest.isEmpty() ? best.getKey() : best.getKey().resolve(rest);
    }
    return root.directory().resolve(sandboxPath.replaceFirst("^/+", ""));
  }

  /** Asserts the cache-layout MUST of this class: no work in progress, every blob as named. */
  protected void assertNothingHalfWrittenInCache() throws IOException {
    var problems = new ArrayList<String>();
    try (Stream<Path> walk = Files.walk(cacheDirectory)) {
      for (var path : walk.toList()) {
        var relative = cacheDirectory.relativize(path);
        if (relative.getNameCount() > 1 && relative.getName(0).toString().equals("tmp")) {
          problems.add("left in tmp: " + relative);
        }
        var parent = path.getParent();
        if (Files.isRegularFile(path)
            && parent.getFileName().toString().equals("sha256")
            && parent.getParent().getFileName().toString().equals("blobs")) {
          var digest = TestLayout.sha256(Files.readAllBytes(path));
          if (!digest.equals("sha256:" + path.getFileName())) {
            problems.add("blob " + relative + " holds content of " + digest);
          }
        }
      }
    }
    assertThat(problems).as("the cache at %s", cacheDirectory).isEmpty();
  }

  /** Deletes a directory tree, leaving links' targets alone. */
  protected static void deleteTree(Path directory) throws IOException {
    if (directory == null || !Files.exists(directory)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(directory)) {
      walk.sorted(Comparator.reverseOrder())
          .forEach(
              path -> {
                try {
                  path.toFile().setWritable(true);
                  Files.delete(path);
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              });
    }
  }
}
