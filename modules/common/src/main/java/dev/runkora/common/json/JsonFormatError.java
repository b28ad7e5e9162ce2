package dev.runkora.common.json;

/**
 * Input that is not the JSON it should be: malformed text, a value of the wrong type, a missing
 * required field or, for strict objects, a field nobody reads. The message names the field.
 */
public final class JsonFormatError extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** Creates an error with a message for the person who sent the input. */
  public JsonFormatError(String message) {
    super(message);
  }

  /** Creates an error with the parser's own failure as its cause. */
  public JsonFormatError(String message, Throwable cause) {
    super(message, cause);
  }
}
