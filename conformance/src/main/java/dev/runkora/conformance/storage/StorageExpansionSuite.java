package dev.runkora.conformance.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.runkora.spi.core.ErrorKind;
import dev.runkora.spi.storage.StorageCapability;
import java.nio.file.Files;
import org.junit.jupiter.api.Test;

/**
 * Conformance for {@link StorageCapability#EXPANSION}: a workspace grows in place and keeps its
 * content; shrinking and unknown names are rejected; a class without the capability rejects the
 * call with UNSUPPORTED.
 */
public abstract class StorageExpansionSuite extends StorageSuite {

  /** expand grows the workspace in place; find reports the new size; content is kept. */
  @Test
  public void expandGrowsAWorkspaceInPlace() throws Exception {
    assumeTrue(declares(StorageCapability.EXPANSION));
    var workspace = storage.provision(request("alpha"));
    Files.writeString(workspace.path().resolve("note.txt"), "kept");

    var grown = storage.expand("alpha", sizeBytes() * 2);

    assertThat(grown.sizeBytes()).isEqualTo(sizeBytes() * 2);
    assertThat(grown.path()).isEqualTo(workspace.path());
    assertThat(storage.find("alpha").orElseThrow().sizeBytes()).isEqualTo(sizeBytes() * 2);
    assertThat(grown.path().resolve("note.txt")).hasContent("kept");
    assertThat(storage.describe().expandable()).isTrue();
  }

  /** Expanding to the current size changes nothing. */
  @Test
  public void expandToTheSameSizeIsANoOp() {
    assumeTrue(declares(StorageCapability.EXPANSION));
    storage.provision(request("alpha"));

    assertThat(storage.expand("alpha", sizeBytes()).sizeBytes()).isEqualTo(sizeBytes());
  }

  /** A smaller size is INVALID_ARGUMENT and leaves the workspace as it was. */
  @Test
  public void expandToASmallerSizeIsInvalid() {
    assumeTrue(declares(StorageCapability.EXPANSION));
    storage.provision(request("alpha"));

    assertKind(
        catchThrowable(() -> storage.expand("alpha", sizeBytes() / 2)), ErrorKind.INVALID_ARGUMENT);
    assertThat(storage.find("alpha").orElseThrow().sizeBytes()).isEqualTo(sizeBytes());
  }

  /** Expanding an unknown workspace is NOT_FOUND. */
  @Test
  public void expandOfAnUnknownWorkspaceIsNotFound() {
    assumeTrue(declares(StorageCapability.EXPANSION));

    assertKind(catchThrowable(() -> storage.expand("unknown", sizeBytes())), ErrorKind.NOT_FOUND);
  }

  /** After growing an enforced workspace, more than its old size can be written. */
  @Test
  public void anEnforcedWorkspaceHoldsMoreAfterGrowing() throws Exception {
    assumeTrue(declares(StorageCapability.EXPANSION) && storage.describe().sizeEnforced());
    var workspace = storage.provision(request("alpha"));
    storage.expand("alpha", sizeBytes() * 4);

    StorageSizeSuite.write(workspace.path().resolve("big"), sizeBytes() + sizeBytes() / 2);

    assertThat(Files.size(workspace.path().resolve("big")))
        .isEqualTo(sizeBytes() + sizeBytes() / 2);
  }

  /** A class without the capability rejects expand with UNSUPPORTED and does not describe it. */
  @Test
  public void expandWithoutTheCapabilityIsUnsupported() {
    assumeFalse(declares(StorageCapability.EXPANSION));
    storage.provision(request("alpha"));

    assertKind(
        catchThrowable(() -> storage.expand("alpha", sizeBytes() * 2)), ErrorKind.UNSUPPORTED);
    assertThat(storage.describe().expandable()).isFalse();
    assertThat(storage.find("alpha").orElseThrow().sizeBytes()).isEqualTo(sizeBytes());
  }
}
