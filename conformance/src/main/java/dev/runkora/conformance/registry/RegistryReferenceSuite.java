package dev.runkora.conformance.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.runkora.spi.core.ErrorKind;
import dev.runkora.spi.registry.RegistryCapability;
import dev.runkora.spi.registry.RegistrySettings;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Naming and reference parsing: what every registry plugin does before any I/O. */
public abstract class RegistryReferenceSuite extends RegistrySuite {

  private static final List<String> MALFORMED =
      List.of(
          "",
          "   ",
          "Upper/Case:1",
          "a//b:1",
          "repo:bad tag",
          "repo:-leading",
          "repo@sha256:abc",
          "repo@md5:0123456789abcdef0123456789abcdef",
          "-leading/x:1",
          "repo/:1");

  @Test
  public void providerNameIsLowerCaseAndDescribed() {
    assertThat(provider().name()).matches("[a-z][a-z0-9-]*");
    assertThat(provider().description()).isNotBlank();
    assertThat(provider().capabilities()).isNotNull();
  }

  @Test
  public void servesItsOwnImage() {
    assertThat(registry.serves(image())).isTrue();
  }

  @Test
  public void resolvingTwiceGivesTheSameReference() {
    assertThat(registry.resolve(image())).isEqualTo(registry.resolve(image()));
  }

  @Test
  public void malformedReferencesAreRefusedWithInvalidArgument() {
    for (var reference : MALFORMED) {
      assertFailsWith(ErrorKind.INVALID_ARGUMENT, () -> registry.resolve(reference));
      assertThat(registry.serves(reference)).as("serves '%s'", reference).isFalse();
    }
  }

  @Test
  public void aRegistryPortNotAmongTheRegistryPortsIsRefused() {
    assumeThat(has(RegistryCapability.MIRRORS)).as("reads remote registries").isTrue();
    assertFailsWith(
        ErrorKind.INVALID_ARGUMENT, () -> registry.resolve("registry.example.com:5001/team/app:1"));
    assertThat(registry.resolve("registry.example.com/team/app:1").registry())
        .isEqualTo("registry.example.com");
  }

  @Test
  public void aListedRegistryPortIsAccepted() {
    assumeThat(has(RegistryCapability.MIRRORS)).as("reads remote registries").isTrue();
    registry.close();
    try (var withPort =
        provider()
            .create(
                config(),
                new dev.runkora.spi.registry.RegistryContext(
                    cacheDirectory,
                    new RegistrySettings(Map.of(), Set.of(5001), Set.of()),
                    System.getLogger("dev.runkora.conformance.registry")))) {
      assertThat(withPort.resolve("registry.example.com:5001/team/app:1").registry())
          .isEqualTo("registry.example.com:5001");
    }
  }
}
