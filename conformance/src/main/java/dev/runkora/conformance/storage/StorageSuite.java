package dev.runkora.conformance.storage;

import static org.assertj.core.api.Assertions.assertThat;

import dev.runkora.spi.core.KoraException;
import dev.runkora.spi.core.PluginConfig;
import dev.runkora.spi.storage.AccessMode;
import dev.runkora.spi.storage.StorageCapability;
import dev.runkora.spi.storage.StorageClass;
import dev.runkora.spi.storage.StorageContext;
import dev.runkora.spi.storage.StorageProvider;
import dev.runkora.spi.storage.WorkspaceRequest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * What the storage suites share: the provider under test, a live class created on a fresh data
 * directory before each test, and clean-up that releases every workspace the test left (so a class
 * that mounts file systems leaves none behind).
 */
public abstract class StorageSuite {

  /** The plugin's data directory for this test; removed afterwards. */
  protected Path dataDirectory;

  /** The class under test. */
  protected StorageClass storage;

  /** Returns the provider under test. */
  protected abstract StorageProvider provider();

  /** Returns the configuration the class is created with; empty by default. */
  protected PluginConfig config() {
    return PluginConfig.empty();
  }

  /** Returns the size the suites provision with; at least 16 MiB by default. */
  protected long sizeBytes() {
    return 16L * 1024 * 1024;
  }

  /** Creates the class on a fresh data directory. */
  @BeforeEach
  public void createStorage() throws IOException {
    dataDirectory = Files.createTempDirectory("kora-storage-conformance-");
    storage = create();
  }

  /** Creates another live class on the same data directory, as a restarted host would. */
  protected StorageClass create() {
    return provider()
        .create(
            config(),
            new StorageContext(dataDirectory, System.getLogger("kora.conformance.storage")));
  }

  /** Releases every workspace left, closes the class and removes the data directory. */
  @AfterEach
  public void releaseEverything() throws IOException {
    try {
      if (storage != null) {
        for (var workspace : storage.list()) {
          storage.release(workspace.name());
        }
        storage.close();
      }
    } finally {
      if (dataDirectory != null && Files.exists(dataDirectory)) {
        try (var walk = Files.walk(dataDirectory)) {
          for (var path : walk.sorted(Comparator.reverseOrder()).toList()) {
            Files.deleteIfExists(path);
          }
        }
      }
    }
  }

  /** Returns whether the provider declares a capability. */
  protected boolean declares(StorageCapability capability) {
    return provider().capabilities().contains(capability);
  }

  /** Returns an access mode the class supports, preferring ReadWriteOnce. */
  protected AccessMode supportedMode() {
    var modes = storage.describe().accessModes();
    return modes.contains(AccessMode.READ_WRITE_ONCE)
        ? AccessMode.READ_WRITE_ONCE
        : modes.iterator().next();
  }

  /** Returns a request for a workspace of the suite's size in a supported access mode. */
  protected WorkspaceRequest request(String name) {
    return new WorkspaceRequest(name, sizeBytes(), supportedMode());
  }

  /** Asserts that a call failed with a kind. */
  protected static void assertKind(Throwable thrown, dev.runkora.spi.core.ErrorKind kind) {
    assertThat(thrown).isInstanceOf(KoraException.class);
    assertThat(((KoraException) thrown).kind()).as(thrown.getMessage()).isEqualTo(kind);
  }
}
