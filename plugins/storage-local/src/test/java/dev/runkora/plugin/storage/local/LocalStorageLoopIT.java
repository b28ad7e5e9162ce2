package dev.runkora.plugin.storage.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.runkora.spi.core.ErrorKind;
import dev.runkora.spi.core.KoraException;
import dev.runkora.spi.core.PluginConfig;
import dev.runkora.spi.storage.AccessMode;
import dev.runkora.spi.storage.StorageClass;
import dev.runkora.spi.storage.StorageContext;
import dev.runkora.spi.storage.WorkspaceRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code enforce=loop} against real loop devices and mounts (root only). */
class LocalStorageLoopIT {

  private static final long MIB = 1024L * 1024;

  @TempDir Path data;
  private StorageClass storage;
  private final List<Path> extraMounts = new ArrayList<>();

  @BeforeEach
  void requireLoopDevices() {
    assumeTrue(Files.exists(Path.of("/dev/loop-control")), "no /dev/loop-control");
    assumeTrue("root".equals(System.getProperty("user.name")), "loop mounts need root");
    storage = create();
  }

  @AfterEach
  void releaseEverything() {
    for (var mount : extraMounts) {
      Commands.run(java.util.Set.of(0, 32), "umount", mount.toString());
    }
    if (storage != null) {
      for (var workspace : storage.list()) {
        storage.release(workspace.name());
      }
    }
  }

  private StorageClass create() {
    return new LocalStorageProvider()
        .create(
            PluginConfig.of("enforce", "loop"), new StorageContext(data, System.getLogger("test")));
  }

  private static WorkspaceRequest request(String name, long size) {
    return new WorkspaceRequest(name, size, AccessMode.READ_WRITE_ONCE);
  }

  @Test
  void aWorkspaceIsAnExt4MountOfItsOwnWithItsSizeAndNothingInIt() throws Exception {
    var workspace = storage.provision(request("agent-1", 32 * MIB));

    var store = Files.getFileStore(workspace.path());
    assertThat(store.type()).isEqualTo("ext4");
    assertThat(store.getTotalSpace()).isBetween(24 * MIB, 32 * MIB);
    assertThat(workspace.sizeEnforced()).isTrue();
    assertThat(workspace.path()).isEmptyDirectory();
    assertThat(Commands.mountPoints()).contains(workspace.path().toRealPath());
    assertThat(storage.describe().sizeEnforced()).isTrue();
  }

  @Test
  void aWorkspaceUnmountedBehindTheClassIsMountedAgainWhenTheClassStarts() throws Exception {
    var workspace = storage.provision(request("agent-1", 16 * MIB));
    Files.writeString(workspace.path().resolve("note.txt"), "kept");
    Commands.run("umount", workspace.path().toString());
    assertThat(workspace.path().resolve("note.txt")).doesNotExist();

    storage = create();

    assertThat(workspace.path().resolve("note.txt")).hasContent("kept");
  }

  @Test
  void provisionMountsARecordedWorkspaceThatWasUnmounted() throws Exception {
    var workspace = storage.provision(request("agent-1", 16 * MIB));
    Files.writeString(workspace.path().resolve("note.txt"), "kept");
    Commands.run("umount", workspace.path().toString());

    storage.provision(request("agent-1", 16 * MIB));

    assertThat(workspace.path().resolve("note.txt")).hasContent("kept");
  }

  @Test
  void expandingAWorkspaceThatASandboxHoldsFailsAsUnavailableAndKeepsItMounted() throws Exception {
    var workspace = storage.provision(request("agent-1", 16 * MIB));
    Files.writeString(workspace.path().resolve("note.txt"), "kept");
    // What a sandbox does: bind the workspace somewhere else.
    var sandboxView = Files.createDirectories(data.resolve("sandbox-view"));
    Commands.run("mount", "--bind", workspace.path().toString(), sandboxView.toString());
    extraMounts.add(sandboxView);

    assertThatThrownBy(() -> storage.expand("agent-1", 32 * MIB))
        .isInstanceOfSatisfying(
            KoraException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.UNAVAILABLE))
        .hasMessageContaining("in use");

    assertThat(storage.find("agent-1").orElseThrow().sizeBytes()).isEqualTo(16 * MIB);
    assertThat(workspace.path().resolve("note.txt")).hasContent("kept");
    assertThat(sandboxView.resolve("note.txt")).hasContent("kept");
    // One loop device only: the remount reused the device the sandbox still holds.
    var image = data.resolve(".images/agent-1.img");
    assertThat(Commands.run("losetup", "-j", image.toString()).lines()).hasSize(1);
  }

  @Test
  void anImageLeftByACrashedProvisionIsReusedWhenItHasTheAskedSize() throws Exception {
    storage.provision(request("agent-1", 16 * MIB));
    // A crash after the image was made and mounted but before the metadata was written.
    Files.delete(data.resolve(".meta/agent-1.properties"));
    var image = data.resolve(".images/agent-1.img");
    var inode = Files.getAttribute(image, "unix:ino");

    var workspace = storage.provision(request("agent-1", 16 * MIB));

    assertThat(Files.getAttribute(image, "unix:ino")).isEqualTo(inode);
    assertThat(Files.getFileStore(workspace.path()).type()).isEqualTo("ext4");
  }

  @Test
  void anImageLeftByACrashedProvisionWithAnotherSizeIsReplaced() throws Exception {
    storage.provision(request("agent-1", 16 * MIB));
    Files.delete(data.resolve(".meta/agent-1.properties"));

    var workspace = storage.provision(request("agent-1", 32 * MIB));

    assertThat(Files.size(data.resolve(".images/agent-1.img"))).isEqualTo(32 * MIB);
    assertThat(Files.getFileStore(workspace.path()).getTotalSpace()).isGreaterThan(24 * MIB);
    assertThat(
            Commands.run("losetup", "-j", data.resolve(".images/agent-1.img").toString()).lines())
        .hasSize(1);
  }

  @Test
  void aSizeTooSmallForAFileSystemIsInvalid() {
    assertThatThrownBy(() -> storage.provision(request("tiny", MIB)))
        .isInstanceOfSatisfying(
            KoraException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.INVALID_ARGUMENT))
        .hasMessageContaining("at least");
    assertThat(storage.find("tiny")).isEmpty();
    assertThat(data.resolve(".images/tiny.img")).doesNotExist();
  }

  @Test
  void aSizeLargerThanTheDiskIsResourceExhaustedAndLeavesNothing() throws Exception {
    long huge = Files.getFileStore(data).getUsableSpace() * 2;

    assertThatThrownBy(() -> storage.provision(request("huge", huge)))
        .isInstanceOfSatisfying(
            KoraException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.RESOURCE_EXHAUSTED));
    assertThat(storage.find("huge")).isEmpty();
    try (var images = Files.list(data.resolve(".images"))) {
      assertThat(images).isEmpty();
    }
  }

  @Test
  void releaseUnmountsAndRemovesTheImage() throws Exception {
    var workspace = storage.provision(request("agent-1", 16 * MIB));
    var real = workspace.path().toRealPath();

    storage.release("agent-1");

    assertThat(Commands.mountPoints()).doesNotContain(real);
    assertThat(data.resolve(".images/agent-1.img")).doesNotExist();
    assertThat(workspace.path()).doesNotExist();
  }
}
