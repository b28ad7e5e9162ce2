package dev.runkora.cli;

/**
 * A command failed in a way the user can act on: the message is printed and the CLI exits with
 * {@link #status()} (1 unless the failure has a conventional status, like 127 for a command that
 * does not exist).
 */
final class CliException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final int status;

  CliException(String message) {
    this(message, 1, null);
  }

  CliException(String message, Throwable cause) {
    this(message, 1, cause);
  }

  CliException(String message, int status, Throwable cause) {
    super(message, cause);
    this.status = status;
  }

  int status() {
    return status;
  }
}
