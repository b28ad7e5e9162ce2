package dev.runkora.plugin.registry.oci.content;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.runkora.spi.core.ErrorKind;
import dev.runkora.spi.core.KoraException;
import dev.runkora.spi.registry.Descriptor;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ImageCacheTest {
  @TempDir Path directory;

  @Test
  public void openingTheCacheDeletesWorkAnInterruptedRunLeftInTmp() throws Exception {
    new ImageCache(directory);
    var leftover = Files.createDirectories(directory.resolve("tmp/root-crashed/rootfs/bin"));
    Files.writeString(leftover.resolve("half"), "half");

    new ImageCache(directory);

    assertThat(directory.resolve("tmp")).isEmptyDirectory();
  }

  @Test
  public void aBlobIsStoredUnderItsDigestOnlyWhenItsContentMatches() {
    var cache = new ImageCache(directory);
    var content = "content".getBytes(StandardCharsets.UTF_8);
    var descriptor = Descriptor.of("application/octet-stream", Digests.of(content), content.length);

    var stored = cache.storeBlob(descriptor, d -> new ByteArrayInputStream(content), m -> {});

    assertThat(stored).hasBinaryContent(content);
    assertThat(stored.getFileName().toString()).isEqualTo(Digests.hex(descriptor.digest()));
  }

  @Test
  public void aBlobLongerThanItsDescriptorIsCutOffAndRefused() {
    var cache = new ImageCache(directory);
    var descriptor = Descriptor.of("x", Digests.of(new byte[10]), 10);
    // a source that never ends: the cache must stop reading at the stated size
    InputStream endless =
        new InputStream() {
          @Override
          public int read() {
            return 0;
          }
        };

    assertThatThrownBy(() -> cache.storeBlob(descriptor, d -> endless, m -> {}))
        .isInstanceOf(KoraException.class)
        .satisfies(
            e -> assertThat(((KoraException) e).kind()).isEqualTo(ErrorKind.INVALID_ARGUMENT));
    assertThat(cache.blobPath(descriptor.digest())).doesNotExist();
    assertThat(directory.resolve("tmp")).isEmptyDirectory();
  }

  @Test
  public void aSourceFailingMidwayLeavesNoPartialBlob() {
    var cache = new ImageCache(directory);
    var descriptor = Descriptor.of("x", Digests.of(new byte[100_000]), 100_000);
    InputStream failing =
        new InputStream() {
          int served;

          @Override
          public int read() throws IOException {
            if (++served > 50_000) {
              throw new IOException("connection reset");
            }
            return 0;
          }
        };

    assertThatThrownBy(() -> cache.storeBlob(descriptor, d -> failing, m -> {}))
        .isInstanceOf(KoraException.class)
        .satisfies(e -> assertThat(((KoraException) e).kind()).isEqualTo(ErrorKind.UNAVAILABLE));
    assertThat(cache.blobPath(descriptor.digest())).doesNotExist();
    assertThat(directory.resolve("tmp")).isEmptyDirectory();
  }

  @Test
  public void aDigestThatIsNotSha256NeverBecomesAPath() {
    var cache = new ImageCache(directory);
    assertThatThrownBy(() -> cache.blobPath("sha256:../../etc/passwd"))
        .isInstanceOf(KoraException.class)
        .satisfies(
            e -> assertThat(((KoraException) e).kind()).isEqualTo(ErrorKind.INVALID_ARGUMENT));
  }
}
