package dev.runkora.conformance.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.runkora.spi.core.ErrorKind;
import dev.runkora.spi.registry.RegistryCapability;
import org.junit.jupiter.api.Test;

/** The local cache: warm after a pull, cold after an evict, kept across a restart. */
public abstract class RegistryCacheSuite extends RegistrySuite {

  @Test
  public void anImageIsWarmOnlyAfterItIsMaterialized() {
    assumeThat(has(RegistryCapability.CACHE)).isTrue();
    var reference = registry.resolve(image());
    assertThat(registry.isWarm(reference)).isFalse();

    registry.materialize(reference, message -> {});

    assertThat(registry.isWarm(reference)).isTrue();
  }

  @Test
  public void evictMakesAnImageColdAndIsIdempotent() throws Exception {
    assumeThat(has(RegistryCapability.CACHE)).isTrue();
    var reference = registry.resolve(image());
    var root = registry.materialize(reference, message -> {});

    registry.evict(reference);
    registry.evict(reference);

    assertThat(registry.isWarm(reference)).isFalse();
    assertThat(root.directory()).doesNotExist();
    assertNothingHalfWrittenInCache();
  }

  @Test
  public void anImageCanBeMaterializedAgainAfterEvict() {
    assumeThat(has(RegistryCapability.CACHE)).isTrue();
    var reference = registry.resolve(image());
    registry.materialize(reference, message -> {});
    registry.evict(reference);

    var root = registry.materialize(reference, message -> {});

    assertThat(locate(root, executableInImage())).isRegularFile().isExecutable();
    assertThat(registry.isWarm(reference)).isTrue();
  }

  @Test
  public void evictingAnImageNeverPulledChangesNothing() {
    assumeThat(has(RegistryCapability.CACHE)).isTrue();
    var reference = registry.resolve(image());
    registry.evict(reference);
    assertThat(registry.isWarm(reference)).isFalse();
  }

  @Test
  public void theCacheIsStillWarmAfterARestart() {
    assumeThat(has(RegistryCapability.CACHE)).isTrue();
    var reference = registry.resolve(image());
    var first = registry.materialize(reference, message -> {});
    registry.close();

    registry = openRegistry();

    assertThat(registry.isWarm(reference)).isTrue();
    assertThat(registry.materialize(reference, message -> {}).directory())
        .isEqualTo(first.directory());
  }

  @Test
  public void withoutACacheEveryImageIsWarm() {
    assumeThat(has(RegistryCapability.CACHE)).isFalse();
    assertThat(registry.isWarm(registry.resolve(image()))).isTrue();
  }

  @Test
  public void withoutACacheEvictIsRefusedWithUnsupported() {
    assumeThat(has(RegistryCapability.CACHE)).isFalse();
    assertFailsWith(ErrorKind.UNSUPPORTED, () -> registry.evict(registry.resolve(image())));
  }
}
