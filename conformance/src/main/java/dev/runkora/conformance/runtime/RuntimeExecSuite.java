package dev.runkora.conformance.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.runkora.spi.core.ErrorKind;
import dev.runkora.spi.runtime.ExecRequest;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;

/** Running commands in a sandbox: arguments, streams, environment, directories, ends. */
public abstract class RuntimeExecSuite extends RuntimeSuite {

  /** The command's exit code is returned as it is. */
  @Test
  public void exitCodeIsReturned() {
    var name = createDefault();

    assertThat(sh(name, "exit 7").exitCode()).isEqualTo(7);
  }

  /** Arguments reach the program unchanged, with no shell in between. */
  @Test
  public void argumentsArePassedWithoutAShell() {
    var name = createDefault();

    var result = run(name, "printf", "%s|", "a b", "$HOME", "*");

    assertThat(result.stdout()).isEqualTo("a b|$HOME|*|");
  }

  /** Standard output and standard error are two streams. */
  @Test
  public void stdoutAndStderrAreSeparate() {
    var name = createDefault();

    var result = sh(name, "echo out; echo err >&2");

    assertThat(result.stdout()).isEqualTo("out\n");
    assertThat(result.stderr()).isEqualTo("err\n");
  }

  /** What is written to standard input reaches the command, and closing it ends its input. */
  @Test
  public void stdinReachesTheCommand() {
    var name = createDefault();

    var result =
        run(name, ExecRequest.of("cat").withTimeout(COMMAND_TIMEOUT), "line one\nline two\n");

    assertThat(result.stdout()).isEqualTo("line one\nline two\n");
  }

  /** Output is streamed while the command runs, not only when it ends. */
  @Test
  public void outputIsStreamedWhileTheCommandRuns() throws Exception {
    var name = createDefault();

    try (var process =
        runtime.exec(name, ExecRequest.of("/bin/sh", "-c", "echo first; sleep 30; echo last"))) {
      var reader =
          new BufferedReader(new InputStreamReader(process.stdout(), StandardCharsets.UTF_8));
      assertThat(reader.readLine()).isEqualTo("first");
      assertThat(process.waitFor(Duration.ofMillis(1))).isEmpty();
      process.kill();
    }
  }

  /** The request's variables are added to the sandbox's base environment, and win over it. */
  @Test
  public void requestEnvironmentIsAddedToTheBaseAndWins() {
    var name = newName();
    create(spec(name).env("BASE", "base").env("BOTH", "base").build());

    var request =
        new ExecRequest(
            List.of("/bin/sh", "-c", "echo $BASE $BOTH $EXTRA"),
            "",
            Map.of("BOTH", "request", "EXTRA", "extra"),
            COMMAND_TIMEOUT);

    assertThat(run(name, request, "").stdout()).isEqualTo("base request extra\n");
  }

  /** Commands start in the spec's working directory, or in the request's when it names one. */
  @Test
  public void workingDirectoryIsTheSpecsOrTheRequests() {
    var name = newName();
    create(spec(name).workingDirectory("/usr").build());

    assertThat(run(name, "pwd").stdout()).isEqualTo("/usr\n");
    var request = new ExecRequest(List.of("pwd"), "/etc", Map.of(), COMMAND_TIMEOUT);
    assertThat(run(name, request, "").stdout()).isEqualTo("/etc\n");
  }

  /** A program that does not exist in the sandbox is INVALID_ARGUMENT. */
  @Test
  public void missingProgramIsInvalidArgument() {
    var name = createDefault();

    assertFailsWith(
        ErrorKind.INVALID_ARGUMENT,
        () -> runtime.exec(name, ExecRequest.of("/nonexistent/kora-program")));
    assertFailsWith(
        ErrorKind.INVALID_ARGUMENT, () -> runtime.exec(name, ExecRequest.of("kora-no-such-tool")));
  }

  /** A working directory that does not exist in the sandbox is INVALID_ARGUMENT. */
  @Test
  public void missingWorkingDirectoryIsInvalidArgument() {
    var name = createDefault();
    var request = new ExecRequest(List.of("true"), "/nonexistent/kora", Map.of(), Duration.ZERO);

    assertFailsWith(ErrorKind.INVALID_ARGUMENT, () -> runtime.exec(name, request));
  }

  /** The request's timeout kills the command, and the result says so. */
  @Test
  public void timeoutKillsTheCommandAndIsReported() {
    var name = createDefault();

    var result = run(name, ExecRequest.of("sleep", "60").withTimeout(Duration.ofMillis(300)), "");

    assertThat(result.timedOut()).isTrue();
    assertThat(result.exitCode()).isNotZero();
  }

  /** A command that ends normally has not timed out. */
  @Test
  public void quickCommandHasNotTimedOut() {
    var name = createDefault();

    assertThat(sh(name, "true").timedOut()).isFalse();
  }

  /** A command ended by a signal reports 128 plus the signal's number. */
  @Test
  public void commandKilledByASignalReports128PlusTheSignal() {
    var name = createDefault();

    assertThat(sh(name, "kill -9 $$").exitCode()).isEqualTo(137);
  }

  /** kill() ends a running command. */
  @Test
  public void killEndsARunningCommand() throws Exception {
    var name = createDefault();

    try (var process = runtime.exec(name, ExecRequest.of("sleep", "60"))) {
      process.kill();
      var exit = process.waitFor(COMMAND_TIMEOUT);
      assertThat(exit).isPresent();
      assertThat(exit.getAsInt()).isNotZero();
    }
  }

  /** Several commands run in one sandbox at once. */
  @Test
  public void commandsRunConcurrentlyInOneSandbox() throws Exception {
    var name = createDefault();

    try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
      var tasks =
          java.util.stream.IntStream.range(0, 8)
              .mapToObj(i -> (Callable<ExecResult>) () -> sh(name, "sleep 0.2; echo " + i))
              .toList();
      var results = pool.invokeAll(tasks);
      for (int i = 0; i < results.size(); i++) {
        assertThat(results.get(i).get().stdout()).isEqualTo(i + "\n");
      }
    }
  }
}
