package dev.runkora.plugin.storage.local;

import dev.runkora.conformance.storage.StorageExpansionSuite;
import dev.runkora.conformance.storage.StorageProvisioningSuite;
import dev.runkora.conformance.storage.StorageSizeSuite;
import dev.runkora.spi.storage.StorageProvider;
import org.junit.jupiter.api.Nested;

/** The storage conformance suites against {@code local} in its default mode (plain directories). */
class LocalStorageConformanceTest {

  static final StorageProvider PROVIDER = new LocalStorageProvider();

  @Nested
  class Provisioning extends StorageProvisioningSuite {
    @Override
    protected StorageProvider provider() {
      return PROVIDER;
    }
  }

  @Nested
  class Expansion extends StorageExpansionSuite {
    @Override
    protected StorageProvider provider() {
      return PROVIDER;
    }
  }

  @Nested
  class Size extends StorageSizeSuite {
    @Override
    protected StorageProvider provider() {
      return PROVIDER;
    }
  }
}
