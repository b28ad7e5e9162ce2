package dev.runkora.plugin.storage.local;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.runkora.conformance.storage.StorageExpansionSuite;
import dev.runkora.conformance.storage.StorageProvisioningSuite;
import dev.runkora.conformance.storage.StorageSizeSuite;
import dev.runkora.spi.core.PluginConfig;
import dev.runkora.spi.storage.StorageProvider;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;

/**
 * The storage conformance suites against {@code local} with {@code enforce=loop}: real ext4 images,
 * loop-mounted. Needs root and {@code /dev/loop-control} (CI has both).
 */
class LocalStorageLoopConformanceIT {

  static final StorageProvider PROVIDER = new LocalStorageProvider();
  static final PluginConfig LOOP = PluginConfig.of("enforce", "loop");

  @BeforeAll
  static void requireLoopDevices() {
    assumeTrue(Files.exists(Path.of("/dev/loop-control")), "no /dev/loop-control");
    assumeTrue("root".equals(System.getProperty("user.name")), "loop mounts need root");
  }

  @Nested
  class Provisioning extends StorageProvisioningSuite {
    @Override
    protected StorageProvider provider() {
      return PROVIDER;
    }

    @Override
    protected PluginConfig config() {
      return LOOP;
    }
  }

  @Nested
  class Expansion extends StorageExpansionSuite {
    @Override
    protected StorageProvider provider() {
      return PROVIDER;
    }

    @Override
    protected PluginConfig config() {
      return LOOP;
    }
  }

  @Nested
  class Size extends StorageSizeSuite {
    @Override
    protected StorageProvider provider() {
      return PROVIDER;
    }

    @Override
    protected PluginConfig config() {
      return LOOP;
    }
  }
}
