package dev.runkora.cli;

/** The command line is wrong: the message says how, and the CLI exits with status 2. */
final class UsageException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  UsageException(String message) {
    super(message);
  }
}
