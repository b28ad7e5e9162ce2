package dev.runkora.plugin.runtime.bwrap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.runkora.conformance.runtime.RuntimeSuite;
import dev.runkora.spi.runtime.ExecRequest;
import dev.runkora.spi.runtime.MountSpec;
import dev.runkora.spi.runtime.RuntimeProvider;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What the exec agent changes and must not change: commands run the sandbox's own programs (not the
 * busybox applets of the same name), with exactly the request's environment, and without the
 * capability to undo a read-only bind.
 */
class BwrapAgentIT extends RuntimeSuite {

  @Override
  protected RuntimeProvider provider() {
    return new BwrapRuntimeProvider();
  }

  @Test
  void commandsRunTheSandboxsProgramsWithTheirOwnArgvZero() {
    var name = createDefault();

    assertThat(run(name, "ls", "--version").stdout()).contains("GNU coreutils");
    var argv0 =
        run(
            name,
            "python3",
            "-c",
            "import sys; print(open('/proc/self/cmdline').read().split(chr(0))[0])");
    assertThat(argv0.stdout()).isEqualTo("python3\n");
  }

  @Test
  void environmentIsExactlyTheBaseAndTheRequestsEvenForNamesTheShellCannotExport() {
    var name = newName();
    create(spec(name).env("PATH", "/usr/bin:/bin").env("BASE", "it's").build());

    var plain =
        run(name, new ExecRequest(List.of("env"), "", Map.of("X", "a b"), COMMAND_TIMEOUT), "");
    assertThat(plain.stdout().lines().sorted().toList())
        .containsExactly("BASE=it's", "PATH=/usr/bin:/bin", "X=a b");
    var odd =
        run(
            name,
            new ExecRequest(List.of("env"), "", Map.of("a-b", "1", "IFS", ":"), COMMAND_TIMEOUT),
            "");
    assertThat(odd.stdout().lines().sorted().toList())
        .containsExactly("BASE=it's", "IFS=:", "PATH=/usr/bin:/bin", "a-b=1");
  }

  @Test
  void killEndsTheCommandAndTheProcessesItStarted() throws Exception {
    var name = createDefault();

    String child;
    try (var process =
        runtime.exec(name, ExecRequest.of("/bin/sh", "-c", "sleep 1000 & echo $!; wait"))) {
      child =
          new java.io.BufferedReader(
                  new java.io.InputStreamReader(
                      process.stdout(), java.nio.charset.StandardCharsets.UTF_8))
              .readLine();
      process.kill();
      assertThat(process.waitFor(COMMAND_TIMEOUT)).isPresent();
    }

    org.awaitility.Awaitility.await()
        .atMost(java.time.Duration.ofSeconds(10))
        .until(() -> sh(name, "kill -0 " + child).exitCode() != 0);
  }

  @Test
  void argumentWithNulIsInvalidArgument() {
    var name = createDefault();

    assertFailsWith(
        dev.runkora.spi.core.ErrorKind.INVALID_ARGUMENT,
        () -> runtime.exec(name, ExecRequest.of("echo", "a\0b")));
  }

  @Test
  void commandCannotRemountAReadOnlyBindWritable() throws Exception {
    var host = hostDirectory("ro");
    Files.writeString(host.resolve("file"), "host\n");
    var name = newName();
    create(spec(name).mount(MountSpec.readOnly(host, "/data")).build());

    var result =
        sh(
            name,
            "/dev/.kora/busybox mount -o remount,rw,bind /data; echo changed > /data/file;"
                + " /dev/.kora/busybox mount -o remount,rw,bind /usr");

    assertThat(result.exitCode()).isNotZero();
    assertThat(Files.readString(host.resolve("file"))).isEqualTo("host\n");
  }

  @Test
  void createReturnsOnlyOnceTheAgentTakesRequests() {
    for (int i = 0; i < 5; i++) {
      var name = createDefault();

      assertThat(run(name, "echo", "first").stdout()).isEqualTo("first\n");
    }
  }

  @Test
  void bubblewrapFailingFailsCreateAtOnceWithItsErrorAndLeavesNothing() throws Exception {
    var host = hostDirectory("unmountable");
    var name = newName();
    // /usr is a read-only bind of the host's: bubblewrap cannot make a mount point below it.
    var spec = spec(name).mount(MountSpec.readOnly(host, "/usr/kora-missing/data")).build();

    var started = System.nanoTime();
    assertThatThrownBy(() -> runtime.create(spec))
        .isInstanceOf(dev.runkora.spi.core.KoraException.class)
        .hasMessageContaining("bubblewrap failed");

    // Well within the start timeout: the wait ends when bubblewrap does.
    assertThat(java.time.Duration.ofNanos(System.nanoTime() - started))
        .isLessThan(java.time.Duration.ofSeconds(5));
    assertThat(runtime.list()).noneMatch(info -> info.name().equals(name));
  }
}
