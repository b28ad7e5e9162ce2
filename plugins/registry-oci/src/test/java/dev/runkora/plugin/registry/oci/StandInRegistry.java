package dev.runkora.plugin.registry.oci;

import dev.runkora.conformance.registry.TestImages;
import dev.runkora.conformance.registry.TestRegistryServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.Optional;

/**
 * One stand-in registry per test JVM serving {@link TestImages} under {@code kora/test}; the
 * suites' bad images are ones a real registry would refuse to store.
 */
final class StandInRegistry {
  private static TestRegistryServer server;

  private StandInRegistry() {}

  static synchronized TestRegistryServer server() {
    if (server == null) {
      try {
        var layout = TestImages.write(Files.createTempDirectory("kora-oci-standin-"));
        server = TestRegistryServer.anonymous(layout.directory());
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return server;
  }

  static Optional<String> image(String tag) {
    return Optional.of(server().host() + "/kora/test:" + tag);
  }
}
