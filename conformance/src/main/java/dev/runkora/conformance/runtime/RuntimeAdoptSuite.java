package dev.runkora.conformance.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.runkora.spi.runtime.ExecRequest;
import dev.runkora.spi.runtime.RuntimeCapability;
import dev.runkora.spi.runtime.SandboxInfo;
import org.junit.jupiter.api.Test;

/**
 * Adoption ({@link RuntimeCapability#ADOPT}): sandboxes outlive the runtime object that made them,
 * and a new runtime object on the same state directory (a restarted host) lists and drives them.
 */
public abstract class RuntimeAdoptSuite extends RuntimeSuite {

  /** After close() and a new runtime object, a sandbox is listed as running and takes commands. */
  @Test
  public void newRuntimeObjectAdoptsARunningSandbox() {
    assumeDeclared(RuntimeCapability.ADOPT);
    var name = newName();
    var createdAt = create(spec(name).env("ADOPTED", "yes").build()).createdAt();
    runtime.close();

    var restarted = openRuntime();

    var info = listed(restarted, name);
    assertThat(info).map(SandboxInfo::running).contains(true);
    assertThat(info).map(SandboxInfo::createdAt).contains(createdAt);
    var result =
        run(
            restarted,
            name,
            ExecRequest.of("/bin/sh", "-c", "echo $ADOPTED").withTimeout(COMMAND_TIMEOUT),
            "");
    assertThat(result.stdout()).isEqualTo("yes\n");
  }

  /** A new runtime object can delete what an earlier one made. */
  @Test
  public void newRuntimeObjectDeletesAnAdoptedSandbox() {
    assumeDeclared(RuntimeCapability.ADOPT);
    var name = createDefault();
    runtime.close();
    var restarted = openRuntime();

    restarted.delete(name);

    assertThat(listed(restarted, name)).isEmpty();
    assertThat(listed(runtime, name)).isEmpty();
  }

  /** A sandbox stopped before the restart is listed as not running after it. */
  @Test
  public void stoppedSandboxIsListedAsNotRunningAfterARestart() {
    assumeDeclared(RuntimeCapability.ADOPT);
    var name = createDefault();
    runtime.stop(name);
    runtime.close();

    var restarted = openRuntime();

    assertThat(listed(restarted, name)).map(SandboxInfo::running).contains(false);
  }
}
