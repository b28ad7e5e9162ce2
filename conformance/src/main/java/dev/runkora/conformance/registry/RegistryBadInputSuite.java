package dev.runkora.conformance.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.runkora.spi.core.ErrorKind;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/**
 * Bad input: unknown images, missing blobs, unsafe or unreadable layers. Each is refused with its
 * error kind, and nothing half-written stays in the cache.
 */
public abstract class RegistryBadInputSuite extends RegistrySuite {

  @Test
  public void anUnknownImageIsNotFound() throws Exception {
    var unknown = testImage("no-such-tag");
    assumeThat(unknown).isPresent();
    assertFailsWith(
        ErrorKind.NOT_FOUND, () -> registry.materialize(registry.resolve(unknown.get()), m -> {}));
    assertNothingHalfWrittenInCache();
  }

  @Test
  public void aMissingBlobIsNotFoundAndLeavesNothingHalfWritten() throws Exception {
    assertRefused("missing-blob", ErrorKind.NOT_FOUND);
  }

  @Test
  public void aLayerEntryWithDotDotIsRefused() throws Exception {
    assertRefused(TestImages.Unsafe.DOTDOT.tag(), ErrorKind.INVALID_ARGUMENT);
  }

  @Test
  public void aLayerEntryWithAnAbsolutePathIsRefused() throws Exception {
    assertRefused(TestImages.Unsafe.ABSOLUTE.tag(), ErrorKind.INVALID_ARGUMENT);
  }

  @Test
  public void aLayerWithADeviceNodeIsRefused() throws Exception {
    assertRefused(TestImages.Unsafe.DEVICE.tag(), ErrorKind.INVALID_ARGUMENT);
  }

  @Test
  public void aLayerWritingThroughASymlinkOutOfTheRootIsRefused() throws Exception {
    assertRefused(TestImages.Unsafe.SYMLINK_ESCAPE.tag(), ErrorKind.INVALID_ARGUMENT);
  }

  @Test
  public void aZstdLayerIsRefusedAsUnsupportedBeforeAnythingIsFetched() throws Exception {
    assertRefused("zstd", ErrorKind.UNSUPPORTED);
    try (var walk = java.nio.file.Files.walk(cacheDirectory)) {
      assertThat(walk.filter(java.nio.file.Files::isRegularFile))
          .as("files in the cache after a refused zstd image")
          .isEmpty();
    }
  }

  private void assertRefused(String tag, ErrorKind kind) throws IOException {
    var image = testImage(tag);
    assumeThat(image).isPresent();
    var reference = registry.resolve(image.get());

    assertFailsWith(kind, () -> registry.materialize(reference, message -> {}));

    assertThat(registry.isWarm(reference)).isFalse();
    assertNothingHalfWrittenInCache();
    assertThat(java.nio.file.Path.of("/etc/escaped"))
        .as("written to the host's /etc")
        .doesNotExist();
    assertThat(cacheDirectory.resolveSibling("escaped"))
        .as("written beside the cache")
        .doesNotExist();
    assertThat(cacheDirectory.resolveSibling("outside"))
        .as("written beside the cache")
        .doesNotExist();
  }
}
