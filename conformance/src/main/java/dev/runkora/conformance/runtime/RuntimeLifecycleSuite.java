package dev.runkora.conformance.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.runkora.spi.core.ErrorKind;
import dev.runkora.spi.runtime.ExecRequest;
import dev.runkora.spi.runtime.MountSpec;
import dev.runkora.spi.runtime.SandboxInfo;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** Create, list, stop and delete: the life of a sandbox, which every runtime supports. */
public abstract class RuntimeLifecycleSuite extends RuntimeSuite {

  /** A runtime reports a subset of what its provider declares. */
  @Test
  public void runtimeCapabilitiesAreASubsetOfTheProviders() {
    assertThat(provider().capabilities()).containsAll(runtime.capabilities());
    assertThat(provider().name()).matches("[a-z][a-z0-9-]*");
  }

  /** A created sandbox is running and listed, and takes a command at once. */
  @Test
  public void createdSandboxRunsAndTakesACommandAtOnce() {
    var name = newName();
    var info = create(spec(name).build());

    assertThat(info.name()).isEqualTo(name);
    assertThat(info.running()).isTrue();
    assertThat(listed(runtime, name)).map(SandboxInfo::running).contains(true);
    var result = sh(name, "echo ready");
    assertThat(result.exitCode()).as(result.describe()).isZero();
    assertThat(result.stdout()).isEqualTo("ready\n");
  }

  /** A second create with a name in use fails with ALREADY_EXISTS and keeps the first sandbox. */
  @Test
  public void createWithANameInUseFailsAndKeepsTheFirst() {
    var name = createDefault();

    assertFailsWith(ErrorKind.ALREADY_EXISTS, () -> runtime.create(spec(name).build()));

    assertThat(sh(name, "true").exitCode()).isZero();
  }

  /** A root filesystem that does not exist is INVALID_ARGUMENT, and nothing is left of it. */
  @Test
  public void createFromAMissingRootFilesystemFailsAndLeavesNothing() {
    var name = newName();
    var spec = spec(name).rootDirectory(Path.of("/nonexistent/kora/root")).build();

    assertFailsWith(ErrorKind.INVALID_ARGUMENT, () -> runtime.create(spec));

    assertThat(listed(runtime, name)).isEmpty();
  }

  /** A mount whose host path does not exist is INVALID_ARGUMENT, and nothing is left of it. */
  @Test
  public void createWithAMissingMountSourceFailsAndLeavesNothing() {
    var name = newName();
    var spec =
        spec(name).mount(MountSpec.readOnly(Path.of("/nonexistent/kora/source"), "/src")).build();

    assertFailsWith(ErrorKind.INVALID_ARGUMENT, () -> runtime.create(spec));

    assertThat(listed(runtime, name)).isEmpty();
  }

  /** A stopped sandbox is listed as not running, and exec into it is NOT_FOUND. */
  @Test
  public void stoppedSandboxIsListedAsNotRunningAndRefusesCommands() {
    var name = createDefault();

    runtime.stop(name);
    runtime.stop(name);

    assertThat(listed(runtime, name)).map(SandboxInfo::running).contains(false);
    assertFailsWith(ErrorKind.NOT_FOUND, () -> runtime.exec(name, ExecRequest.of("true")));
  }

  /** Stopping a name the runtime does not know is NOT_FOUND. */
  @Test
  public void stopOfAnUnknownSandboxIsNotFound() {
    assertFailsWith(ErrorKind.NOT_FOUND, () -> runtime.stop(newName()));
  }

  /** Exec into a name the runtime does not know is NOT_FOUND. */
  @Test
  public void execInAnUnknownSandboxIsNotFound() {
    assertFailsWith(ErrorKind.NOT_FOUND, () -> runtime.exec(newName(), ExecRequest.of("true")));
  }

  /** Delete removes a sandbox from the listing; deleting again, or an unknown name, succeeds. */
  @Test
  public void deleteRemovesTheSandboxAndIsIdempotent() {
    var name = createDefault();

    runtime.delete(name);
    runtime.delete(name);
    runtime.delete(newName());

    assertThat(listed(runtime, name)).isEmpty();
    assertFailsWith(ErrorKind.NOT_FOUND, () -> runtime.exec(name, ExecRequest.of("true")));
  }

  /** A deleted sandbox's name can be used again at once. */
  @Test
  public void nameCanBeReusedAfterDelete() {
    var name = createDefault();
    runtime.delete(name);

    create(spec(name).build());

    assertThat(sh(name, "true").exitCode()).isZero();
  }

  /** Deleting one sandbox leaves another running. */
  @Test
  public void deletingOneSandboxLeavesAnotherRunning() {
    var first = createDefault();
    var second = createDefault();

    runtime.delete(first);

    assertThat(listed(runtime, second)).map(SandboxInfo::running).contains(true);
    assertThat(sh(second, "true").exitCode()).isZero();
  }
}
