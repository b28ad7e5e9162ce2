package dev.runkora.plugin.registry.oci;

import static org.assertj.core.api.Assertions.assertThat;

import dev.runkora.conformance.registry.TestImages;
import dev.runkora.conformance.registry.TestRegistryServer;
import dev.runkora.spi.core.ErrorKind;
import dev.runkora.spi.core.KoraException;
import dev.runkora.spi.core.PluginConfig;
import dev.runkora.spi.registry.ImageRegistry;
import dev.runkora.spi.registry.RegistryContext;
import dev.runkora.spi.registry.RegistrySettings;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Bearer tokens, mirrors and platforms, against stand-in registries on loopback. */
class OciRegistryWireTest {
  @TempDir Path layouts;
  @TempDir Path cache;

  private ImageRegistry open(RegistrySettings settings, PluginConfig config) {
    return new OciRegistryProvider()
        .create(config, new RegistryContext(cache, settings, System.getLogger("test")));
  }

  @Test
  public void aBearerChallengeIsAnsweredWithATokenForThePullScope() throws Exception {
    var layout = TestImages.write(layouts.resolve("a"));
    try (var server = TestRegistryServer.withBearerToken(layout.directory());
        var registry = open(RegistrySettings.defaults(), PluginConfig.empty())) {
      var root = registry.materialize(registry.resolve(server.host() + "/team/app:good"), m -> {});

      assertThat(root.directory().resolve("bin/hello")).isRegularFile();
      assertThat(server.lastScope()).contains("scope=repository:team/app:pull");
      assertThat(server.lastScope()).contains("service=kora-test");
      // the token is kept: one challenge, not one per blob
      assertThat(server.tokenRequests()).isEqualTo(1);
    }
  }

  @Test
  public void concurrentMaterializationsOfOneImageFetchEachBlobOnce() throws Exception {
    var layout = TestImages.write(layouts.resolve("a"));
    try (var server = TestRegistryServer.anonymous(layout.directory());
        var registry = open(RegistrySettings.defaults(), PluginConfig.empty());
        var pool = java.util.concurrent.Executors.newFixedThreadPool(4)) {
      var reference = registry.resolve(server.host() + "/kora/test:good");
      var start = new java.util.concurrent.CountDownLatch(1);
      var results = new java.util.ArrayList<java.util.concurrent.Future<Path>>();
      for (int i = 0; i < 4; i++) {
        results.add(
            pool.submit(
                () -> {
                  start.await();
                  return registry.materialize(reference, m -> {}).directory();
                }));
      }
      start.countDown();
      for (var result : results) {
        assertThat(result.get()).isEqualTo(results.getFirst().get());
      }
      // config + two layers, each fetched once however many callers asked
      assertThat(server.blobRequests()).isEqualTo(3);
    }
  }

  @Test
  public void aBlobRedirectToAnotherHostIsFollowedWithoutTheToken() throws Exception {
    var layout = TestImages.write(layouts.resolve("a"));
    try (var server = TestRegistryServer.withBearerTokenAndBlobRedirects(layout.directory());
        var registry = open(RegistrySettings.defaults(), PluginConfig.empty())) {
      var root = registry.materialize(registry.resolve(server.host() + "/team/app:good"), m -> {});

      assertThat(root.directory().resolve("bin/hello")).isRegularFile();
      assertThat(server.storageRequests()).isEqualTo(3);
      assertThat(server.storageRequestsWithAuthorization()).isZero();
    }
  }

  @Test
  public void aMirrorIsReadFirstAndTheOriginIsNotAsked() throws Exception {
    var layout = TestImages.write(layouts.resolve("a"));
    var empty = TestImages.write(layouts.resolve("b"));
    try (var mirror = TestRegistryServer.anonymous(layout.directory());
        var origin = TestRegistryServer.anonymous(empty.directory());
        var registry =
            open(
                new RegistrySettings(Map.of(origin.host(), mirror.host()), Set.of(), Set.of()),
                PluginConfig.empty())) {
      registry.materialize(registry.resolve(origin.host() + "/kora/test:good"), m -> {});

      assertThat(mirror.blobRequests()).isPositive();
      assertThat(origin.blobRequests()).isZero();
    }
  }

  @Test
  public void whenTheMirrorIsDownTheOriginIsRead() throws Exception {
    var layout = TestImages.write(layouts.resolve("a"));
    try (var origin = TestRegistryServer.anonymous(layout.directory());
        var registry =
            open(
                new RegistrySettings(Map.of(origin.host(), "127.0.0.1:9"), Set.of(), Set.of()),
                PluginConfig.empty())) {
      var root = registry.materialize(registry.resolve(origin.host() + "/kora/test:good"), m -> {});

      assertThat(root.directory().resolve("bin/hello")).isRegularFile();
      assertThat(origin.blobRequests()).isPositive();
    }
  }

  @Test
  public void anIndexWithoutThisNodesPlatformIsNotFound() throws Exception {
    var layout = TestImages.write(layouts.resolve("a"));
    try (var server = TestRegistryServer.anonymous(layout.directory());
        var registry =
            open(RegistrySettings.defaults(), PluginConfig.of("platform", "linux/riscv64"))) {
      try {
        registry.manifest(registry.resolve(server.host() + "/kora/test:index"));
        throw new AssertionError("found a riscv64 manifest");
      } catch (KoraException e) {
        assertThat(e.kind()).isEqualTo(ErrorKind.NOT_FOUND);
        assertThat(e.getMessage()).contains("linux/riscv64").contains("linux/s390x");
      }
    }
  }

  @Test
  public void anUnreachableRegistryIsUnavailable() {
    try (var registry = open(RegistrySettings.defaults(), PluginConfig.empty())) {
      try {
        registry.manifest(registry.resolve("127.0.0.1:9/kora/test:good"));
        throw new AssertionError("reached a closed port");
      } catch (KoraException e) {
        assertThat(e.kind()).isEqualTo(ErrorKind.UNAVAILABLE);
      }
    }
  }

  @Test
  public void loopbackRegistriesNeedNoListedPortButOthersDo() {
    try (var registry = open(RegistrySettings.defaults(), PluginConfig.empty())) {
      assertThat(registry.resolve("127.0.0.1:5000/kora/busybox:latest").registry())
          .isEqualTo("127.0.0.1:5000");
      assertThat(registry.resolve("localhost:5000/kora/busybox:latest").registry())
          .isEqualTo("localhost:5000");
      try {
        registry.resolve("10.1.2.3:5000/kora/busybox:latest");
        throw new AssertionError("accepted an unlisted port");
      } catch (KoraException e) {
        assertThat(e.kind()).isEqualTo(ErrorKind.INVALID_ARGUMENT);
        assertThat(e.getMessage()).contains("registryPorts");
      }
    }
  }
}
