package dev.runkora.sandboxd.engine;

/**
 * A failure the API answers with a status and {@code {"error": message}}. The message never holds a
 * secret.
 */
public final class ApiException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final int status;

  /** Creates a failure answered with {@code status}. */
  public ApiException(int status, String message) {
    super(message);
    this.status = status;
  }

  /** Creates a failure answered with {@code status}, keeping the cause for the log. */
  public ApiException(int status, String message, Throwable cause) {
    super(message, cause);
    this.status = status;
  }

  /** Returns the HTTP status. */
  public int status() {
    return status;
  }

  /** 400 with a message. */
  public static ApiException badRequest(String message) {
    return new ApiException(400, message);
  }

  /** 404 {@code unknown sandbox}: unknown id, wrong token or already gone, alike. */
  public static ApiException unknownSandbox() {
    return new ApiException(404, "unknown sandbox");
  }

  /** 429 with a message. */
  public static ApiException tooMany(String message) {
    return new ApiException(429, message);
  }
}
