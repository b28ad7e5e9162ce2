package dev.runkora.conformance.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.runkora.spi.core.ErrorKind;
import dev.runkora.spi.registry.RegistryCapability;
import dev.runkora.spi.registry.RootFilesystem;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;

/** Pulling and materialising: an image becomes a root filesystem a sandbox can run from. */
public abstract class RegistryMaterializeSuite extends RegistrySuite {

  @Test
  public void materializedRootHoldsTheImagesExecutable() {
    var progress = new CopyOnWriteArrayList<String>();
    var root = registry.materialize(registry.resolve(image()), progress::add);

    assertThat(root.directory()).isDirectory();
    var executable = locate(root, executableInImage());
    assertThat(executable).isRegularFile().isExecutable();
    assertThat(root.workingDirectory()).startsWith("/");
  }

  @Test
  public void materializingTwiceGivesTheSameRoot() {
    var reference = registry.resolve(image());
    var first = registry.materialize(reference, message -> {});
    var second = registry.materialize(reference, message -> {});
    assertThat(second.directory()).isEqualTo(first.directory());
    assertThat(second.digest()).isEqualTo(first.digest());
  }

  @Test
  public void concurrentMaterializationsOfOneImageAllGetTheSameRoot() throws Exception {
    var reference = registry.resolve(image());
    int callers = 4;
    var start = new CountDownLatch(1);
    var futures = new ArrayList<CompletableFuture<RootFilesystem>>();
    try (var pool = Executors.newFixedThreadPool(callers)) {
      for (int i = 0; i < callers; i++) {
        futures.add(
            CompletableFuture.supplyAsync(
                () -> {
                  try {
                    start.await();
                  } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                  }
                  return registry.materialize(reference, message -> {});
                },
                pool));
      }
      start.countDown();
      var first = futures.getFirst().get();
      for (var future : futures) {
        assertThat(future.get().directory()).isEqualTo(first.directory());
      }
      assertThat(locate(first, executableInImage())).isRegularFile();
    }
  }

  @Test
  public void manifestNamesItsDigestAndLayersWhenPullIsDeclared() {
    assumeThat(has(RegistryCapability.PULL)).isTrue();
    var manifest = registry.manifest(registry.resolve(image()));
    assertThat(manifest.digest()).matches("sha256:[a-f0-9]{64}");
    assertThat(manifest.layers()).isNotEmpty();
    assertThat(manifest.config().digest()).matches("sha256:[a-f0-9]{64}");
  }

  @Test
  public void manifestIsRefusedWithUnsupportedWithoutPull() {
    assumeThat(has(RegistryCapability.PULL)).isFalse();
    assertFailsWith(ErrorKind.UNSUPPORTED, () -> registry.manifest(registry.resolve(image())));
  }

  @Test
  public void whiteoutsAndOpaqueDirectoriesHideLowerLayersEntries() {
    var good = testImage("good");
    assumeThat(good).isPresent();
    var root = registry.materialize(registry.resolve(good.get()), message -> {});

    var dir = root.directory();
    assertThat(dir.resolve("bin/hello")).isRegularFile().isExecutable();
    assertThat(dir.resolve("etc/kept")).hasContent("kept");
    assertThat(dir.resolve("etc/removed")).doesNotExist();
    assertThat(dir.resolve("etc/opaque/old")).doesNotExist();
    assertThat(dir.resolve("etc/opaque/new")).hasContent("new");
    assertThat(Files.exists(dir.resolve("etc/opaque/.wh..wh..opq"))).isFalse();
    assertThat(root.env()).containsEntry("KORA_TEST", "good");
  }

  @Test
  public void anImageIndexIsFollowedToThisNodesPlatform() {
    var index = testImage("index");
    var good = testImage("good");
    assumeThat(index).isPresent();
    assumeThat(has(RegistryCapability.IMAGE_INDEX)).isTrue();

    var fromIndex = registry.materialize(registry.resolve(index.get()), message -> {});
    var direct = registry.manifest(registry.resolve(good.orElseThrow()));

    assertThat(fromIndex.digest()).isEqualTo(direct.digest());
    assertThat(fromIndex.directory().resolve("bin/hello")).isRegularFile();
    assertThat(fromIndex.directory().resolve("other")).doesNotExist();
  }
}
