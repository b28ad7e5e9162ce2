package dev.runkora.plugin.registry.ocilayout;

import dev.runkora.conformance.registry.TestImages;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** One layout of {@link TestImages} per test JVM. */
final class TestImagesLayout {
  private static Path directory;

  private TestImagesLayout() {}

  static synchronized Path directory() {
    if (directory == null) {
      try {
        directory = TestImages.write(Files.createTempDirectory("kora-oci-layout-")).directory();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return directory;
  }
}
