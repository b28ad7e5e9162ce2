package dev.runkora.conformance.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.runkora.spi.core.ErrorKind;
import dev.runkora.spi.storage.AccessMode;
import dev.runkora.spi.storage.WorkspaceRequest;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * Conformance for every storage class: provision, find, list and release, their idempotency, the
 * rejections they promise, and that a workspace outlives the object that made it.
 */
public abstract class StorageProvisioningSuite extends StorageSuite {

  /** A provisioned workspace has the asked name, size and mode, at an existing directory. */
  @Test
  public void provisionReturnsTheAskedWorkspaceAtADirectory() {
    var workspace = storage.provision(request("alpha"));

    assertThat(workspace.name()).isEqualTo("alpha");
    assertThat(workspace.sizeBytes()).isEqualTo(sizeBytes());
    assertThat(workspace.accessMode()).isEqualTo(supportedMode());
    assertThat(workspace.path()).isDirectory().isAbsolute();
  }

  /** Provisioning the same request again returns the same workspace and keeps its content. */
  @Test
  public void provisionIsIdempotentAndNeverRecreates() throws Exception {
    var first = storage.provision(request("alpha"));
    Files.writeString(first.path().resolve("note.txt"), "kept");

    var second = storage.provision(request("alpha"));

    assertThat(second.path()).isEqualTo(first.path());
    assertThat(second.sizeBytes()).isEqualTo(first.sizeBytes());
    assertThat(second.path().resolve("note.txt")).hasContent("kept");
    assertThat(storage.list()).extracting(w -> w.name()).containsExactly("alpha");
  }

  /** A workspace of the same name with another size is not replaced: ALREADY_EXISTS. */
  @Test
  public void provisionWithAnotherSizeFailsWithAlreadyExists() throws Exception {
    var workspace = storage.provision(request("alpha"));
    Files.writeString(workspace.path().resolve("note.txt"), "kept");

    var thrown =
        catchThrowable(
            () ->
                storage.provision(new WorkspaceRequest("alpha", sizeBytes() * 2, supportedMode())));

    assertKind(thrown, ErrorKind.ALREADY_EXISTS);
    assertThat(storage.find("alpha").orElseThrow().sizeBytes()).isEqualTo(sizeBytes());
    assertThat(workspace.path().resolve("note.txt")).hasContent("kept");
  }

  /** An access mode the class does not describe is rejected with UNSUPPORTED, creating nothing. */
  @Test
  public void anUndescribedAccessModeIsUnsupported() {
    for (var mode : AccessMode.values()) {
      if (storage.describe().accessModes().contains(mode)) {
        continue;
      }
      var thrown =
          catchThrowable(() -> storage.provision(new WorkspaceRequest("beta", sizeBytes(), mode)));
      assertKind(thrown, ErrorKind.UNSUPPORTED);
      assertThat(storage.find("beta")).isEmpty();
    }
  }

  /** A workspace that exists in one mode is not handed out in another: ALREADY_EXISTS. */
  @Test
  public void provisionWithAnotherSupportedModeFailsWithAlreadyExists() {
    var modes = storage.describe().accessModes();
    org.junit.jupiter.api.Assumptions.assumeTrue(modes.size() > 1, "one access mode only");
    storage.provision(request("alpha"));
    var other = modes.stream().filter(m -> m != supportedMode()).findFirst().orElseThrow();

    var thrown =
        catchThrowable(() -> storage.provision(new WorkspaceRequest("alpha", sizeBytes(), other)));

    assertKind(thrown, ErrorKind.ALREADY_EXISTS);
  }

  /** find returns a provisioned workspace and nothing for an unknown name. */
  @Test
  public void findReturnsProvisionedWorkspacesOnly() {
    var workspace = storage.provision(request("alpha"));

    assertThat(storage.find("alpha"))
        .hasValueSatisfying(w -> assertThat(w.path()).isEqualTo(workspace.path()));
    assertThat(storage.find("unknown")).isEmpty();
  }

  /** list returns every provisioned workspace and no released one. */
  @Test
  public void listReturnsEveryWorkspace() {
    storage.provision(request("alpha"));
    storage.provision(request("beta"));
    storage.provision(request("gamma"));
    storage.release("beta");

    assertThat(storage.list())
        .extracting(w -> w.name())
        .containsExactlyInAnyOrder("alpha", "gamma");
  }

  /**
   * release removes the workspace and its content; releasing again, or an unknown name, succeeds.
   */
  @Test
  public void releaseIsIdempotent() throws Exception {
    var workspace = storage.provision(request("alpha"));
    Files.writeString(workspace.path().resolve("note.txt"), "gone");

    storage.release("alpha");
    storage.release("alpha");
    storage.release("never-provisioned");

    assertThat(storage.find("alpha")).isEmpty();
    assertThat(workspace.path().resolve("note.txt")).doesNotExist();
    var again = storage.provision(request("alpha"));
    assertThat(again.path()).isEmptyDirectory();
  }

  /** A workspace and what it holds survive closing the class and creating it again. */
  @Test
  public void workspacesSurviveARestartOfTheClass() throws Exception {
    var workspace = storage.provision(request("alpha"));
    Files.writeString(workspace.path().resolve("note.txt"), "kept");
    storage.close();

    storage = create();

    assertThat(storage.find("alpha"))
        .hasValueSatisfying(w -> assertThat(w.sizeBytes()).isEqualTo(sizeBytes()));
    assertThat(storage.provision(request("alpha")).path().resolve("note.txt")).hasContent("kept");
  }

  /** Concurrent provisions of one name agree on one workspace. */
  @Test
  public void concurrentProvisionsOfOneNameAgree() throws Exception {
    try (var executor = Executors.newFixedThreadPool(8)) {
      var futures = new ArrayList<Future<java.nio.file.Path>>();
      for (int i = 0; i < 8; i++) {
        Callable<java.nio.file.Path> task = () -> storage.provision(request("shared")).path();
        futures.add(executor.submit(task));
      }
      var paths = new java.util.HashSet<java.nio.file.Path>();
      for (var future : futures) {
        paths.add(future.get());
      }
      assertThat(paths).hasSize(1);
    }
    assertThat(storage.list()).hasSize(1);
  }

  /** Names that would leave the class's directory are rejected by find and release. */
  @Test
  public void namesThatEscapeAreRejected() {
    assertKind(catchThrowable(() -> storage.release("../escape")), ErrorKind.INVALID_ARGUMENT);
    assertKind(catchThrowable(() -> storage.find("../escape")), ErrorKind.INVALID_ARGUMENT);
  }
}
