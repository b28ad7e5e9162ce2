package dev.runkora.spi.runtime;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One command to run inside a running sandbox.
 *
 * @param argv the program and its arguments; no shell is implied; not empty
 * @param workingDirectory an absolute sandbox path, or empty for the sandbox's default
 * @param env variables added to the sandbox's base environment
 * @param timeout how long the command may run before it is killed; {@link Duration#ZERO} for no
 *     limit
 */
public record ExecRequest(
    List<String> argv, String workingDirectory, Map<String, String> env, Duration timeout) {

  /** Checks the argument vector and copies the collections. */
  public ExecRequest {
    argv = List.copyOf(argv);
    if (argv.isEmpty()) {
      throw new IllegalArgumentException("argv is empty");
    }
    Objects.requireNonNull(workingDirectory, "workingDirectory");
    env = Map.copyOf(env);
    Objects.requireNonNull(timeout, "timeout");
    if (timeout.isNegative()) {
      throw new IllegalArgumentException("timeout is negative");
    }
  }

  /** Returns a request for a command with the sandbox's defaults and no timeout. */
  public static ExecRequest of(String... argv) {
    return new ExecRequest(List.of(argv), "", Map.of(), Duration.ZERO);
  }

  /** Returns a copy with a timeout. */
  public ExecRequest withTimeout(Duration value) {
    return new ExecRequest(argv, workingDirectory, env, value);
  }
}
