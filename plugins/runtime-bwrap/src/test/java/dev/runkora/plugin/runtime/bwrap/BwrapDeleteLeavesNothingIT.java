package dev.runkora.plugin.runtime.bwrap;

import static org.assertj.core.api.Assertions.assertThat;

import dev.runkora.conformance.runtime.RuntimeSuite;
import dev.runkora.spi.runtime.ExecRequest;
import dev.runkora.spi.runtime.MountSpec;
import dev.runkora.spi.runtime.NetworkMode;
import dev.runkora.spi.runtime.ResourceLimits;
import dev.runkora.spi.runtime.RuntimeProvider;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * After delete, nothing of a sandbox is left on the host: no process, no mount, no cgroup, no file,
 * even when it had limits, a writable root, a live mount, a running command and an orphan.
 */
class BwrapDeleteLeavesNothingIT extends RuntimeSuite {

  @Override
  protected RuntimeProvider provider() {
    return new BwrapRuntimeProvider();
  }

  @Test
  void deleteLeavesNoProcessMountCgroupOrFile() throws Exception {
    var name = newName();
    create(
        spec(name)
            .writableRoot(true)
            .network(NetworkMode.NONE)
            .limits(ResourceLimits.none().withMemoryBytes(128L << 20).withPids(64).withCpus(0.5))
            .build());
    runtime.mount(name, MountSpec.readWrite(hostDirectory("workspace"), "/workspace"));
    assertThat(sh(name, "(sleep 1000 >/dev/null 2>&1 &) ; echo x > /workspace/f").exitCode())
        .isZero();
    var running = runtime.exec(name, ExecRequest.of("sleep", "1000"));
    var sandboxDir = stateDirectory.resolve("sandboxes").resolve(name).toAbsolutePath();
    var cgroupDirs = cgroupDirectories(name);
    var pids = processesOf(cgroupDirs);
    assertThat(cgroupDirs).isNotEmpty().allMatch(Files::isDirectory);
    assertThat(pids).hasSizeGreaterThanOrEqualTo(4);
    assertThat(mountsBelow(sandboxDir)).hasSizeGreaterThanOrEqualTo(3);

    runtime.delete(name);

    // Collecting an exit status is the parent's business and happens just after: the JVM's
    // process reaper for processes it started, the host's init for the rest.
    Awaitility.await()
        .atMost(Duration.ofSeconds(5))
        .untilAsserted(
            () -> assertThat(pids).noneMatch(BwrapDeleteLeavesNothingIT::runsOrAwaitsReaping));
    assertThat(mountsBelow(sandboxDir)).isEmpty();
    assertThat(cgroupDirs).noneMatch(Files::exists);
    assertThat(sandboxDir).doesNotExist();
    running.close();
  }

  /** Whether a process exists at all, running or as a zombie nobody has collected yet. */
  private static boolean runsOrAwaitsReaping(long pid) {
    return Files.exists(Path.of("/proc", Long.toString(pid)));
  }

  private static List<Path> cgroupDirectories(String name) {
    return CgroupV1.CONTROLLERS.stream()
        .map(controller -> Path.of("/sys/fs/cgroup", controller, "kora", name))
        .filter(Files::isDirectory)
        .toList();
  }

  private static Set<Long> processesOf(List<Path> cgroupDirs) throws IOException {
    var pids = new HashSet<Long>();
    for (var dir : cgroupDirs) {
      for (var line : Files.readAllLines(dir.resolve("cgroup.procs"))) {
        pids.add(Long.parseLong(line.trim()));
      }
    }
    return pids;
  }

  private static List<String> mountsBelow(Path dir) throws IOException {
    return Files.readAllLines(Path.of("/proc/self/mountinfo")).stream()
        .filter(line -> line.contains(dir.toString()))
        .toList();
  }
}
