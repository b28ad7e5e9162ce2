package dev.runkora.api;

/**
 * A sandboxd call that did not succeed: an HTTP error answer ({@link #status()} is its status and
 * {@link #error()} the {@code error} field of its body), or no answer at all ({@link #status()} is
 * 0 and the cause says why).
 *
 * <p>Messages never contain a token.
 */
public class ApiException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** Status used when no HTTP answer arrived. */
  public static final int NO_ANSWER = 0;

  private final int status;
  private final String error;

  /**
   * An error answer.
   *
   * @param status the HTTP status
   * @param error the server's error message
   */
  public ApiException(int status, String error) {
    super(status + ": " + error);
    this.status = status;
    this.error = error;
  }

  /**
   * No answer, or one that could not be read.
   *
   * @param error what happened
   * @param cause the I/O failure
   */
  public ApiException(String error, Throwable cause) {
    super(error, cause);
    this.status = NO_ANSWER;
    this.error = error;
  }

  /** The HTTP status, or {@link #NO_ANSWER}. */
  public int status() {
    return status;
  }

  /** The server's error message (or what went wrong, when there was no answer). */
  public String error() {
    return error;
  }

  /** Whether the server answered 404: an unknown id, a wrong token, or a sandbox already gone. */
  public boolean isNotFound() {
    return status == 404;
  }

  /** Whether no daemon answered (connection refused, timed out, closed). */
  public boolean isUnreachable() {
    return status == NO_ANSWER;
  }
}
