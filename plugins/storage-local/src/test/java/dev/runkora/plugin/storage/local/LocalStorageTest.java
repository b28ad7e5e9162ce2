package dev.runkora.plugin.storage.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.runkora.spi.core.ErrorKind;
import dev.runkora.spi.core.KoraException;
import dev.runkora.spi.core.PluginConfig;
import dev.runkora.spi.storage.AccessMode;
import dev.runkora.spi.storage.StorageCapability;
import dev.runkora.spi.storage.StorageClass;
import dev.runkora.spi.storage.StorageContext;
import dev.runkora.spi.storage.StorageProvider;
import dev.runkora.spi.storage.WorkspaceRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LocalStorageTest {

  private static final long MIB = 1024L * 1024;

  @TempDir Path data;

  private StorageClass create(String... settings) {
    return new LocalStorageProvider()
        .create(PluginConfig.of(settings), new StorageContext(data, System.getLogger("test")));
  }

  @Test
  void declaresNodeLocalUsageAndExpansionButNotSharedOrEnforcedSizes() {
    assertThat(new LocalStorageProvider().capabilities())
        .containsExactlyInAnyOrder(
            StorageCapability.NODE_LOCAL, StorageCapability.USAGE, StorageCapability.EXPANSION);
  }

  @Test
  void describesReadWriteOnceNodeLocalExpandableAndNotEnforcedByDefault() {
    var description = create().describe();

    assertThat(description.accessModes()).containsExactly(AccessMode.READ_WRITE_ONCE);
    assertThat(description.nodeLocal()).isTrue();
    assertThat(description.expandable()).isTrue();
    assertThat(description.sizeEnforced()).isFalse();
  }

  @Test
  void workspacesLiveUnderTheDataDirectoryByDefault() {
    var workspace =
        create().provision(new WorkspaceRequest("agent-1", 10 * MIB, AccessMode.READ_WRITE_ONCE));

    assertThat(workspace.path()).isEqualTo(data.resolve("agent-1").toAbsolutePath());
    assertThat(workspace.sizeEnforced()).isFalse();
    assertThat(workspace.usedBytes()).isZero();
  }

  @Test
  void theRootSettingMovesTheWorkspaces() {
    var root = data.resolve("elsewhere");

    var workspace =
        create("root", root.toString())
            .provision(new WorkspaceRequest("agent-1", 10 * MIB, AccessMode.READ_WRITE_ONCE));

    assertThat(workspace.path()).isEqualTo(root.resolve("agent-1").toAbsolutePath());
  }

  @Test
  void metadataRecordsSizeAccessModeAndEnforcementAndLeavesNoTemporaryFile() throws Exception {
    create().provision(new WorkspaceRequest("agent-1", 10 * MIB, AccessMode.READ_WRITE_ONCE));

    var properties = new Properties();
    try (var in = Files.newBufferedReader(data.resolve(".meta/agent-1.properties"))) {
      properties.load(in);
    }
    assertThat(properties)
        .containsEntry("name", "agent-1")
        .containsEntry("sizeBytes", String.valueOf(10 * MIB))
        .containsEntry("accessMode", "READ_WRITE_ONCE")
        .containsEntry("enforcement", "none");
    try (var files = Files.list(data.resolve(".meta"))) {
      assertThat(files)
          .extracting(p -> p.getFileName().toString())
          .containsExactly("agent-1.properties");
    }
  }

  @Test
  void readWriteManyIsUnsupportedWithAMessageSayingWhy() {
    var storage = create();

    assertThatThrownBy(
            () ->
                storage.provision(new WorkspaceRequest("agent-1", MIB, AccessMode.READ_WRITE_MANY)))
        .isInstanceOfSatisfying(
            KoraException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.UNSUPPORTED))
        .hasMessageContaining("ReadWriteMany")
        .hasMessageContaining("ReadWriteOnce");
    assertThat(data.resolve("agent-1")).doesNotExist();
  }

  @Test
  void aCorruptMetadataFileMakesListingFailInsteadOfReturningLess() throws Exception {
    var storage = create();
    storage.provision(new WorkspaceRequest("good", MIB, AccessMode.READ_WRITE_ONCE));
    Files.writeString(data.resolve(".meta/bad.properties"), "name=bad\nsizeBytes=lots\n");

    assertThatThrownBy(storage::list)
        .isInstanceOfSatisfying(
            KoraException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.UNAVAILABLE))
        .hasMessageContaining("bad.properties");
  }

  @Test
  void anUnreadableMetadataDirectoryMakesListingFail() throws Exception {
    var storage = create();
    storage.provision(new WorkspaceRequest("good", MIB, AccessMode.READ_WRITE_ONCE));
    // Replace the metadata directory by a file: listing it fails whoever runs the test.
    var meta = data.resolve(".meta");
    Files.delete(meta.resolve("good.properties"));
    Files.delete(meta);
    Files.writeString(meta, "not a directory");

    assertThatThrownBy(storage::list)
        .isInstanceOfSatisfying(
            KoraException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.UNAVAILABLE));
  }

  @Test
  void aDirectoryLeftByACrashedProvisionIsReusedNotWiped() throws Exception {
    // A crash after the directory was made but before the metadata was written.
    Files.createDirectories(data.resolve("agent-1"));
    Files.writeString(data.resolve("agent-1/left.txt"), "left");

    var workspace =
        create().provision(new WorkspaceRequest("agent-1", MIB, AccessMode.READ_WRITE_ONCE));

    assertThat(workspace.path().resolve("left.txt")).hasContent("left");
  }

  @Test
  void temporaryFilesLeftByACrashAreRemovedAtStartAndNeverListed() throws Exception {
    create();
    Files.writeString(data.resolve(".meta/agent-1.properties.tmp-123"), "name=agent-1\n");

    var storage = create();

    assertThat(storage.list()).isEmpty();
    assertThat(data.resolve(".meta/agent-1.properties.tmp-123")).doesNotExist();
  }

  @Test
  void aRecordedWorkspaceWhoseDirectoryVanishedIsNotSilentlyRecreated() throws Exception {
    var storage = create();
    var workspace =
        storage.provision(new WorkspaceRequest("agent-1", MIB, AccessMode.READ_WRITE_ONCE));
    Files.delete(workspace.path());

    assertThatThrownBy(
            () ->
                storage.provision(new WorkspaceRequest("agent-1", MIB, AccessMode.READ_WRITE_ONCE)))
        .isInstanceOfSatisfying(
            KoraException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.INTERNAL))
        .hasMessageContaining("release it to start over");
    storage.release("agent-1");
    assertThat(storage.find("agent-1")).isEmpty();
  }

  @Test
  void releaseRemovesASymbolicLinkInsideTheWorkspaceButNotItsTarget() throws Exception {
    var outside = Files.writeString(data.resolve("outside.txt"), "keep me");
    var storage = create();
    var workspace =
        storage.provision(new WorkspaceRequest("agent-1", MIB, AccessMode.READ_WRITE_ONCE));
    Files.createSymbolicLink(workspace.path().resolve("link"), outside);
    Files.createDirectories(workspace.path().resolve("a/b"));
    Files.writeString(workspace.path().resolve("a/b/c.txt"), "x");

    storage.release("agent-1");

    assertThat(workspace.path()).doesNotExist();
    assertThat(outside).hasContent("keep me");
  }

  @Test
  void usedBytesCountFilesInNestedDirectories() throws Exception {
    var storage = create();
    var workspace =
        storage.provision(new WorkspaceRequest("agent-1", MIB, AccessMode.READ_WRITE_ONCE));
    Files.createDirectories(workspace.path().resolve("a/b"));
    Files.write(workspace.path().resolve("a/one"), new byte[1000]);
    Files.write(workspace.path().resolve("a/b/two"), new byte[234]);

    assertThat(storage.find("agent-1").orElseThrow().usedBytes()).isEqualTo(1234);
  }

  @Test
  void expandingAPlainDirectoryUpdatesTheRecordedSize() {
    var storage = create();
    storage.provision(new WorkspaceRequest("agent-1", MIB, AccessMode.READ_WRITE_ONCE));

    storage.expand("agent-1", 3 * MIB);

    assertThat(create().find("agent-1").orElseThrow().sizeBytes()).isEqualTo(3 * MIB);
  }

  @Test
  void badSettingsAreRejectedNamingTheSetting() {
    assertThatThrownBy(() -> create("enforce", "xfs-quota"))
        .isInstanceOfSatisfying(
            KoraException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.INVALID_ARGUMENT))
        .hasMessageContaining("enforce")
        .hasMessageContaining("none or loop");
    assertThatThrownBy(() -> create("size", "1G"))
        .isInstanceOf(KoraException.class)
        .hasMessageContaining("size");
  }

  @Test
  void aRootThatCannotBeCreatedIsUnavailable() throws Exception {
    var file = Files.writeString(data.resolve("a-file"), "x");

    assertThatThrownBy(() -> create("root", file.resolve("sub").toString()))
        .isInstanceOfSatisfying(
            KoraException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.UNAVAILABLE))
        .hasMessageContaining(file.toString());
  }

  @Test
  void isProvidedUnderTheNameLocal() {
    var descriptor = LocalStorageProvider.class.getModule().getDescriptor();

    assertThat(new LocalStorageProvider().name()).isEqualTo("local");
    assertThat(descriptor.provides())
        .anySatisfy(
            p -> {
              assertThat(p.service()).isEqualTo(StorageProvider.class.getName());
              assertThat(p.providers()).containsExactly(LocalStorageProvider.class.getName());
            });
  }
}
