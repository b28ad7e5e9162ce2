package dev.runkora.cli;

/** A command failed in a way the user can act on: the message is printed, the CLI exits 1. */
final class CliException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  CliException(String message) {
    super(message);
  }

  CliException(String message, Throwable cause) {
    super(message, cause);
  }
}
