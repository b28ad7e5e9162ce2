package dev.runkora.plugin.storage.local;

import dev.runkora.conformance.storage.ExpansionConformance;
import dev.runkora.conformance.storage.ProvisioningConformance;
import dev.runkora.conformance.storage.SizeConformance;
import dev.runkora.spi.storage.StorageProvider;
import org.junit.jupiter.api.Nested;

/** The storage conformance suites against {@code local} in its default mode (plain directories). */
class LocalStorageConformanceTest {

  static final StorageProvider PROVIDER = new LocalStorageProvider();

  @Nested
  class Provisioning extends ProvisioningConformance {
    @Override
    protected StorageProvider provider() {
      return PROVIDER;
    }
  }

  @Nested
  class Expansion extends ExpansionConformance {
    @Override
    protected StorageProvider provider() {
      return PROVIDER;
    }
  }

  @Nested
  class Size extends SizeConformance {
    @Override
    protected StorageProvider provider() {
      return PROVIDER;
    }
  }
}
