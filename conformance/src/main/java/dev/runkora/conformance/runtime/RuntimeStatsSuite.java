package dev.runkora.conformance.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.runkora.spi.core.ErrorKind;
import dev.runkora.spi.runtime.ExecRequest;
import dev.runkora.spi.runtime.RuntimeCapability;
import org.junit.jupiter.api.Test;

/** Measuring a sandbox ({@link RuntimeCapability#STATS}). */
public abstract class RuntimeStatsSuite extends RuntimeSuite {

  /** A sandbox that ran something shows memory, CPU time and its running processes. */
  @Test
  public void statsMeasureMemoryCpuAndProcesses() {
    assumeDeclared(RuntimeCapability.STATS);
    var name = createDefault();
    sh(name, "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done");

    var sleeper = runtime.exec(name, ExecRequest.of("sleep", "30"));
    try {
      var stats = runtime.stats(name);

      assertThat(stats.measured()).isTrue();
      assertThat(stats.memoryBytes()).isPositive();
      assertThat(stats.cpuNanos()).isPositive();
      assertThat(stats.processes()).isGreaterThanOrEqualTo(2);
    } finally {
      sleeper.close();
    }
  }

  /** Stats of a name the runtime does not know is NOT_FOUND. */
  @Test
  public void statsOfAnUnknownSandboxIsNotFound() {
    assumeDeclared(RuntimeCapability.STATS);

    assertFailsWith(ErrorKind.NOT_FOUND, () -> runtime.stats(newName()));
  }

  /** Without STATS, stats() is UNSUPPORTED. */
  @Test
  public void statsAreRejectedWhenNotDeclared() {
    assumeNotDeclared(RuntimeCapability.STATS);
    var name = createDefault();

    assertFailsWith(ErrorKind.UNSUPPORTED, () -> runtime.stats(name));
  }
}
