package dev.runkora.conformance.registry;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * The real registry the {@code *IT} tests pull from: Debian's {@code docker-registry} on loopback,
 * with the busybox images of {@code conformance/fixtures/test-registry.sh}. CI starts it and sets
 * {@code KORA_TEST_REGISTRY} (host:port) and {@code KORA_TEST_LAYOUT} (the images' OCI layout);
 * without them the first caller runs the script itself, so that {@code ./mvnw verify} alone works.
 */
public final class LocalTestRegistry {
  private static final String SCRIPT = "conformance/fixtures/test-registry.sh";
  private static String address;
  private static Path layout;

  private LocalTestRegistry() {}

  /** Returns the registry's {@code host:port}, starting it when needed. */
  public static synchronized String address() {
    ensure();
    return address;
  }

  /**
   * Returns the OCI layout holding the same images, with tags {@code latest} and {@code layered}.
   */
  public static synchronized Path layout() {
    ensure();
    return layout;
  }

  /** Returns the reference of the busybox image of a tag ({@code latest}, {@code layered}). */
  public static String busybox(String tag) {
    return address() + "/kora/busybox:" + tag;
  }

  private static void ensure() {
    if (address != null) {
      return;
    }
    var fromEnvironment = System.getenv("KORA_TEST_REGISTRY");
    var layoutFromEnvironment = System.getenv("KORA_TEST_LAYOUT");
    if (fromEnvironment != null
        && !fromEnvironment.isBlank()
        && layoutFromEnvironment != null
        && !layoutFromEnvironment.isBlank()) {
      address = fromEnvironment;
      layout = Path.of(layoutFromEnvironment);
      return;
    }
    var directory = Path.of(System.getProperty("java.io.tmpdir"), "kora-test-registry");
    var script = findScript();
    try {
      var process =
          new ProcessBuilder("bash", script.toString(), "start", directory.toString())
              .redirectError(ProcessBuilder.Redirect.INHERIT)
              .start();
      var output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!process.waitFor(5, TimeUnit.MINUTES) || process.exitValue() != 0) {
        throw new IllegalStateException(script + " start failed: " + output);
      }
      var first = output.lines().findFirst().orElseThrow();
      address = first.substring(0, first.indexOf('/'));
      layout = directory.resolve("layout");
    } catch (IOException e) {
      throw new IllegalStateException("cannot run " + script, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static Path findScript() {
    var directory = Path.of(System.getProperty("user.dir")).toAbsolutePath();
    while (directory != null) {
      var candidate = directory.resolve(SCRIPT);
      if (Files.isRegularFile(candidate)) {
        return candidate;
      }
      directory = directory.getParent();
    }
    throw new IllegalStateException(SCRIPT + " not found above " + System.getProperty("user.dir"));
  }
}
