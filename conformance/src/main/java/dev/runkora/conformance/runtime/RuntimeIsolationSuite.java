package dev.runkora.conformance.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.runkora.spi.runtime.ExecRequest;
import dev.runkora.spi.runtime.RuntimeCapability;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Arrays;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * What a sandbox must not see or touch: other processes ({@link
 * RuntimeCapability#PROCESS_ISOLATION}) and files outside its root and mounts ({@link
 * RuntimeCapability#FILESYSTEM_ISOLATION}). A runtime without them promises nothing here.
 */
public abstract class RuntimeIsolationSuite extends RuntimeSuite {

  /** A sandbox sees its own processes only: none of the host's, none of another sandbox's. */
  @Test
  public void sandboxSeesOnlyItsOwnProcesses() {
    assumeDeclared(RuntimeCapability.PROCESS_ISOLATION);
    var name = createDefault();
    var other = createDefault();
    var sleeper = runtime.exec(other, ExecRequest.of("sleep", "30"));
    try {
      var result = sh(name, "for p in /proc/[0-9]*; do cat $p/comm; done");

      var commands = Arrays.asList(result.stdout().strip().split("\n"));
      assertThat(commands).as(result.describe()).hasSizeLessThan(8).doesNotContain("java", "sleep");
    } finally {
      sleeper.close();
    }
  }

  /**
   * Orphans are reaped: a process left behind by a command that exited is adopted by the sandbox's
   * init, which collects it when it ends, so no zombie stays.
   */
  @Test
  public void orphansAreReapedByTheSandboxInit() {
    assumeDeclared(RuntimeCapability.PROCESS_ISOLATION);
    var name = createDefault();

    assertThat(sh(name, "sleep 0.2 & exit 0").exitCode()).isZero();

    Awaitility.await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              var result =
                  sh(name, "for p in /proc/[0-9]*; do cut -d' ' -f3 $p/stat; done 2>/dev/null");
              assertThat(result.stdout().split("\n")).doesNotContain("Z");
              assertThat(sh(name, "cat /proc/[0-9]*/comm").stdout()).doesNotContain("sleep");
            });
  }

  /** A read-only root refuses writes. */
  @Test
  public void readOnlyRootRefusesWrites() {
    assumeDeclared(RuntimeCapability.FILESYSTEM_ISOLATION);
    var name = createDefault();

    assertThat(sh(name, "echo x > /kora-probe").exitCode()).isNotZero();
  }

  /**
   * A writable root takes writes into the sandbox's own layer: another sandbox of the same root
   * does not see them, and the shared root filesystem is never written.
   */
  @Test
  public void writableRootKeepsWritesToItself() throws Exception {
    assumeDeclared(RuntimeCapability.FILESYSTEM_ISOLATION);
    var writer = newName();
    create(spec(writer).writableRoot(true).build());
    var reader = newName();
    create(spec(reader).writableRoot(true).build());

    assertThat(sh(writer, "echo mine > /kora-probe && cat /kora-probe").stdout())
        .isEqualTo("mine\n");

    assertThat(sh(reader, "test -e /kora-probe").exitCode()).isNotZero();
    try (var files = Files.list(root.root())) {
      assertThat(files).isEmpty();
    }
  }

  /** A host file outside the root filesystem and mounts is not visible inside. */
  @Test
  public void hostFilesOutsideTheRootAreInvisible() throws Exception {
    assumeDeclared(RuntimeCapability.FILESYSTEM_ISOLATION);
    var secret = hostDirectory("secret").resolve("secret.txt");
    Files.writeString(secret, "host only");
    var name = createDefault();

    assertThat(run(name, "cat", secret.toString()).exitCode()).isNotZero();
    assertThat(sh(name, "test -e " + stateDirectory).exitCode()).isNotZero();
  }

  /**
   * A working directory that is a symbolic link to an absolute path is resolved inside the sandbox:
   * a link to a host-only directory never makes a command start in the host's directory.
   */
  @Test
  public void linkAsWorkingDirectoryResolvesInsideTheSandbox() throws Exception {
    assumeDeclared(RuntimeCapability.FILESYSTEM_ISOLATION);
    var hostOnly = hostDirectory("host-only");
    Files.writeString(hostOnly.resolve("host-secret.txt"), "host only");
    var name = newName();
    create(spec(name).writableRoot(true).build());
    assertThat(sh(name, "ln -s " + hostOnly + " /kora-link").exitCode()).isZero();

    var request =
        new ExecRequest(
            java.util.List.of("ls", "-a"), "/kora-link", java.util.Map.of(), COMMAND_TIMEOUT);
    try {
      var result = run(name, request, "");
      assertThat(result.stdout()).doesNotContain("host-secret");
    } catch (dev.runkora.spi.core.KoraException e) {
      assertThat(e.kind()).isEqualTo(dev.runkora.spi.core.ErrorKind.INVALID_ARGUMENT);
    }
  }
}
