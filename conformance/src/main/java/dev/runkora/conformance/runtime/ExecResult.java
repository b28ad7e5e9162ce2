package dev.runkora.conformance.runtime;

/**
 * What one command in a sandbox did, collected by {@link RuntimeSuite#run}.
 *
 * @param exitCode the exit code (128 + the signal number when a signal ended it)
 * @param stdout everything it wrote to standard output
 * @param stderr everything it wrote to standard error
 * @param timedOut whether the request's own timeout ended it
 */
public record ExecResult(int exitCode, String stdout, String stderr, boolean timedOut) {

  /** Returns a short description for assertion messages. */
  public String describe() {
    return "exit "
        + exitCode
        + ", stdout ["
        + stdout.strip()
        + "], stderr ["
        + stderr.strip()
        + "]";
  }
}
