package dev.runkora.conformance.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.runkora.spi.core.ErrorKind;
import dev.runkora.spi.runtime.ResourceLimits;
import dev.runkora.spi.runtime.RuntimeCapability;
import org.junit.jupiter.api.Test;

/**
 * Resource limits: each one declared is enforced, each one not declared is refused with
 * UNSUPPORTED. The programs come from the suite's root filesystem ({@code python3} of the host
 * template): they really allocate, fork and spin.
 */
public abstract class RuntimeLimitsSuite extends RuntimeSuite {

  private static final long MIB = 1024 * 1024;

  /** A process that allocates 256 MiB in a sandbox limited to 64 MiB is killed; the rest lives. */
  @Test
  public void memoryLimitKillsAProcessThatAllocatesMore() {
    assumeDeclared(RuntimeCapability.MEMORY_LIMIT);
    var name = newName();
    create(spec(name).limits(ResourceLimits.none().withMemoryBytes(64 * MIB)).build());

    var result =
        run(
            name,
            "python3",
            "-c",
            "b = bytearray(256 * 1024 * 1024)\n"
                + "for i in range(0, len(b), 4096): b[i] = 1\n"
                + "print('allocated')");

    assertThat(result.exitCode()).as(result.describe()).isNotZero();
    assertThat(result.stdout()).doesNotContain("allocated");
    assertThat(sh(name, "echo alive").stdout()).isEqualTo("alive\n");
  }

  /** A process that stays under the memory limit is not disturbed by it. */
  @Test
  public void memoryLimitLetsASmallerAllocationThrough() {
    assumeDeclared(RuntimeCapability.MEMORY_LIMIT);
    var name = newName();
    create(spec(name).limits(ResourceLimits.none().withMemoryBytes(256 * MIB)).build());

    var result = run(name, "python3", "-c", "b = bytearray(32 * 1024 * 1024); print('allocated')");

    assertThat(result.stdout()).as(result.describe()).isEqualTo("allocated\n");
  }

  /** A fork bomb in a sandbox limited to 32 processes gets no further than that. */
  @Test
  public void pidsLimitStopsAForkBomb() {
    assumeDeclared(RuntimeCapability.PIDS_LIMIT);
    var name = newName();
    create(spec(name).limits(ResourceLimits.none().withPids(32)).build());

    var result =
        run(
            name,
            "python3",
            "-c",
            """
            import os, time
            forked = 0
            try:
                for _ in range(500):
                    if os.fork() == 0:
                        time.sleep(2)
                        os._exit(0)
                    forked += 1
            except OSError:
                pass
            print(forked, flush=True)
            os._exit(0)
            """);

    assertThat(result.stdout().strip()).as(result.describe()).isNotEmpty();
    assertThat(Integer.parseInt(result.stdout().strip())).isLessThan(32);
  }

  /**
   * A sandbox limited to a fifth of a CPU gets about that: a busy loop of 2 s wall time uses far
   * less than the 2 s of CPU time it would get unlimited.
   */
  @Test
  public void cpuLimitCapsCpuTime() {
    assumeDeclared(RuntimeCapability.CPU_LIMIT);
    var name = newName();
    create(spec(name).limits(ResourceLimits.none().withCpus(0.2)).build());

    var result =
        run(
            name,
            "python3",
            "-c",
            """
            import time
            end = time.monotonic() + 2
            while time.monotonic() < end:
                pass
            print(time.process_time())
            """);

    assertThat(Double.parseDouble(result.stdout().strip())).as(result.describe()).isLessThan(1.0);
  }

  /** Without CPU_LIMIT, a CPU limit is UNSUPPORTED and nothing is left of the sandbox. */
  @Test
  public void cpuLimitIsRejectedWhenNotDeclared() {
    assertRejectedUnlessDeclared(RuntimeCapability.CPU_LIMIT, ResourceLimits.none().withCpus(0.5));
  }

  /** Without MEMORY_LIMIT, a memory limit is UNSUPPORTED and nothing is left of the sandbox. */
  @Test
  public void memoryLimitIsRejectedWhenNotDeclared() {
    assertRejectedUnlessDeclared(
        RuntimeCapability.MEMORY_LIMIT, ResourceLimits.none().withMemoryBytes(64 * MIB));
  }

  /** Without PIDS_LIMIT, a process limit is UNSUPPORTED and nothing is left of the sandbox. */
  @Test
  public void pidsLimitIsRejectedWhenNotDeclared() {
    assertRejectedUnlessDeclared(RuntimeCapability.PIDS_LIMIT, ResourceLimits.none().withPids(32));
  }

  /** Without DISK_LIMIT, a disk limit is UNSUPPORTED and nothing is left of the sandbox. */
  @Test
  public void diskLimitIsRejectedWhenNotDeclared() {
    assertRejectedUnlessDeclared(
        RuntimeCapability.DISK_LIMIT, ResourceLimits.none().withDiskBytes(64 * MIB));
  }

  private void assertRejectedUnlessDeclared(RuntimeCapability capability, ResourceLimits limits) {
    assumeNotDeclared(capability);
    var name = newName();

    assertFailsWith(ErrorKind.UNSUPPORTED, () -> runtime.create(spec(name).limits(limits).build()));
    assertThat(listed(runtime, name)).isEmpty();
  }
}
