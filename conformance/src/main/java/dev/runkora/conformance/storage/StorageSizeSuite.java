package dev.runkora.conformance.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.runkora.spi.storage.StorageCapability;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;

/**
 * Conformance for {@link StorageCapability#SIZE_ENFORCED} and {@link StorageCapability#USAGE}: an
 * enforced workspace refuses writes beyond its size and says it is enforced; a class that does not
 * enforce says so honestly; measured use follows what was written.
 */
public abstract class StorageSizeSuite extends StorageSuite {

  private boolean enforced() {
    return declares(StorageCapability.SIZE_ENFORCED) || storage.describe().sizeEnforced();
  }

  /** An enforced workspace refuses a write beyond its size and accepts one well below it. */
  @Test
  public void anEnforcedWorkspaceRefusesWritesBeyondItsSize() throws Exception {
    assumeTrue(enforced());
    var workspace = storage.provision(request("alpha"));
    assertThat(workspace.sizeEnforced()).isTrue();

    write(workspace.path().resolve("half"), sizeBytes() / 2);
    var thrown = catchThrowable(() -> write(workspace.path().resolve("over"), sizeBytes()));

    assertThat(thrown).isInstanceOf(IOException.class);
  }

  /** A class that does not enforce sizes reports every workspace as not enforced. */
  @Test
  public void aClassThatDoesNotEnforceSaysSo() {
    assumeFalse(enforced());

    assertThat(storage.provision(request("alpha")).sizeEnforced()).isFalse();
    assertThat(storage.describe().sizeEnforced()).isFalse();
  }

  /** Measured use grows with what was written and falls when it is deleted. */
  @Test
  public void usedBytesFollowWhatWasWritten() throws Exception {
    assumeTrue(declares(StorageCapability.USAGE));
    var workspace = storage.provision(request("alpha"));
    long before = storage.find("alpha").orElseThrow().usedBytes();
    assertThat(before).isBetween(0L, 1024L * 1024);

    write(workspace.path().resolve("data"), 2L * 1024 * 1024);
    long after = storage.find("alpha").orElseThrow().usedBytes();
    Files.delete(workspace.path().resolve("data"));
    long deleted = storage.find("alpha").orElseThrow().usedBytes();

    assertThat(after - before).isBetween(2L * 1024 * 1024, 3L * 1024 * 1024);
    assertThat(deleted).isEqualTo(before);
  }

  /** Without {@link StorageCapability#USAGE} use is reported as -1, never a made-up number. */
  @Test
  public void usedBytesAreMinusOneWhenNotMeasured() {
    assumeFalse(declares(StorageCapability.USAGE));

    assertThat(storage.provision(request("alpha")).usedBytes()).isEqualTo(-1);
  }

  /** Writes {@code bytes} bytes of data to a file and syncs it, so a full disk shows at once. */
  public static void write(Path file, long bytes) throws IOException {
    var chunk = ByteBuffer.allocate(1024 * 1024);
    try (var channel =
        FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
      long left = bytes;
      while (left > 0) {
        chunk.clear();
        chunk.limit((int) Math.min(chunk.capacity(), left));
        while (chunk.hasRemaining()) {
          left -= channel.write(chunk);
        }
      }
      channel.force(true);
    }
  }
}
