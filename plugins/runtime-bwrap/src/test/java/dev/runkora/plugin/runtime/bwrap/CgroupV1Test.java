package dev.runkora.plugin.runtime.bwrap;

import static org.assertj.core.api.Assertions.assertThat;

import dev.runkora.spi.runtime.ResourceLimits;
import dev.runkora.spi.runtime.RuntimeCapability;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The capability report follows the controllers found; limits land in their files. */
class CgroupV1Test {

  @Test
  void onlyTheControllersFoundAreDeclared(@TempDir Path root) throws IOException {
    controller(root, "memory");

    var cgroups = CgroupV1.probe(root, "kora");

    assertThat(cgroups.capabilities()).containsExactly(RuntimeCapability.MEMORY_LIMIT);
  }

  @Test
  void noControllerMeansNoLimitAndNoStats(@TempDir Path root) {
    assertThat(CgroupV1.probe(root, "kora").capabilities()).isEmpty();
  }

  @Test
  void allFourControllersGiveEveryLimitAndStats(@TempDir Path root) throws IOException {
    for (var controller : CgroupV1.CONTROLLERS) {
      controller(root, controller);
    }

    assertThat(CgroupV1.probe(root, "kora").capabilities())
        .containsExactlyInAnyOrder(
            RuntimeCapability.MEMORY_LIMIT,
            RuntimeCapability.PIDS_LIMIT,
            RuntimeCapability.CPU_LIMIT,
            RuntimeCapability.STATS);
  }

  @Test
  void limitsAreWrittenAsCfsQuotaMemoryAndPids(@TempDir Path root) throws IOException {
    for (var controller : CgroupV1.CONTROLLERS) {
      controller(root, controller);
    }
    var cgroups = CgroupV1.probe(root, "kora");

    cgroups.create(
        "s1", ResourceLimits.none().withCpus(1.5).withMemoryBytes(64L << 20).withPids(32));

    assertThat(root.resolve("cpu/kora/s1/cpu.cfs_quota_us")).hasContent("150000");
    assertThat(root.resolve("cpu/kora/s1/cpu.cfs_period_us")).hasContent("100000");
    assertThat(root.resolve("memory/kora/s1/memory.limit_in_bytes")).hasContent("67108864");
    assertThat(root.resolve("pids/kora/s1/pids.max")).hasContent("32");
    assertThat(cgroups.procsFiles("s1")).hasSize(4);
  }

  /** A directory that looks like a mounted v1 controller hierarchy. */
  private static void controller(Path root, String name) throws IOException {
    var dir = Files.createDirectories(root.resolve(name));
    Files.writeString(dir.resolve("cgroup.procs"), "");
    // A real hierarchy makes the files of a new cgroup itself; a plain directory does not, so
    // the probe's parent gets them here.
    var parent = Files.createDirectories(dir.resolve("kora"));
    Files.writeString(parent.resolve("cgroup.procs"), "");
  }
}
