package dev.runkora.plugin.runtime.bwrap;

import static org.assertj.core.api.Assertions.assertThat;

import dev.runkora.conformance.runtime.RuntimeSuite;
import dev.runkora.spi.runtime.RuntimeProvider;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Where a sandbox's processes sit: its exec agent, and so every command, in the sandbox's own
 * cgroups; and the machine set up so that moving the agent there does not wait for the kernel.
 */
class BwrapCgroupIT extends RuntimeSuite {

  @Override
  protected RuntimeProvider provider() {
    return new BwrapRuntimeProvider();
  }

  @Test
  void commandsRunInTheSandboxsCgroupsInEveryHierarchy() throws Exception {
    var name = createDefault();
    var result = run(name, "cat", "/proc/self/cgroup");

    assertThat(result.exitCode()).as(result.describe()).isZero();
    var lines = result.stdout().lines().toList();
    for (var controller : List.of("memory", "pids", "cpu")) {
      assertThat(lines)
          .as("the %s hierarchy", controller)
          .anySatisfy(line -> assertThat(line).contains(controller).endsWith("/kora/" + name));
    }
  }

  @Test
  void theMachineFavoursCgroupMigrations() throws Exception {
    createDefault();

    assertThat(Files.readAllLines(Path.of("/proc/self/mountinfo")))
        .anySatisfy(line -> assertThat(line).contains(" - cgroup ").contains("favordynmods"));
  }
}
