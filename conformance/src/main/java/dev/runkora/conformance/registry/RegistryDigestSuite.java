package dev.runkora.conformance.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.runkora.spi.core.ErrorKind;
import dev.runkora.spi.registry.RegistryCapability;
import org.junit.jupiter.api.Test;

/** Digest verification: content that does not match its digest is never used or cached. */
public abstract class RegistryDigestSuite extends RegistrySuite {

  @Test
  public void aBlobThatDoesNotMatchItsDigestIsRefusedAndNotCached() throws Exception {
    assumeThat(has(RegistryCapability.DIGEST_VERIFICATION)).isTrue();
    var corrupt = testImage("corrupt");
    assumeThat(corrupt).isPresent();
    var reference = registry.resolve(corrupt.get());

    assertFailsWith(ErrorKind.INVALID_ARGUMENT, () -> registry.materialize(reference, m -> {}));

    assertThat(registry.isWarm(reference)).isFalse();
    assertNothingHalfWrittenInCache();
  }

  @Test
  public void everyCachedBlobHoldsTheContentOfItsDigest() throws Exception {
    assumeThat(has(RegistryCapability.DIGEST_VERIFICATION)).isTrue();
    registry.materialize(registry.resolve(image()), message -> {});
    assertNothingHalfWrittenInCache();
  }

  @Test
  public void aPinnedDigestTheSourceLacksIsNotFound() {
    assumeThat(has(RegistryCapability.DIGEST_VERIFICATION)).isTrue();
    var good = testImage("good");
    assumeThat(good).isPresent();
    var pinned = good.get() + "@sha256:" + "0".repeat(64);

    assertFailsWith(
        ErrorKind.NOT_FOUND, () -> registry.materialize(registry.resolve(pinned), m -> {}));
  }
}
