package dev.runkora.spi.core;

import java.util.Objects;

/**
 * The one exception a plugin throws. It carries a {@link ErrorKind} the host acts on and a message
 * fit to show to the person who made the call: it names what was wrong and, where one exists, what
 * to change. A message never contains a secret (a token, a credential, a password).
 */
public final class KoraException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final ErrorKind kind;

  /**
   * Creates an exception of a kind.
   *
   * @param kind what the caller should do next
   * @param message what was wrong, for a person
   */
  public KoraException(ErrorKind kind, String message) {
    super(message);
    this.kind = Objects.requireNonNull(kind, "kind");
  }

  /**
   * Creates an exception of a kind with the lower-level failure that caused it.
   *
   * @param kind what the caller should do next
   * @param message what was wrong, for a person
   * @param cause the lower-level failure
   */
  public KoraException(ErrorKind kind, String message, Throwable cause) {
    super(message, cause);
    this.kind = Objects.requireNonNull(kind, "kind");
  }

  /** Returns the kind of this failure. */
  public ErrorKind kind() {
    return kind;
  }

  /** Returns a {@link ErrorKind#NOT_FOUND} exception with a formatted message. */
  public static KoraException notFound(String format, Object... args) {
    return new KoraException(ErrorKind.NOT_FOUND, format.formatted(args));
  }

  /** Returns an {@link ErrorKind#ALREADY_EXISTS} exception with a formatted message. */
  public static KoraException alreadyExists(String format, Object... args) {
    return new KoraException(ErrorKind.ALREADY_EXISTS, format.formatted(args));
  }

  /** Returns an {@link ErrorKind#INVALID_ARGUMENT} exception with a formatted message. */
  public static KoraException invalidArgument(String format, Object... args) {
    return new KoraException(ErrorKind.INVALID_ARGUMENT, format.formatted(args));
  }

  /** Returns an {@link ErrorKind#UNSUPPORTED} exception naming the plugin and the capability. */
  public static KoraException unsupported(String plugin, Enum<?> capability) {
    return new KoraException(
        ErrorKind.UNSUPPORTED,
        "plugin '%s' does not support %s".formatted(plugin, capability.name()));
  }

  /** Returns an {@link ErrorKind#UNAVAILABLE} exception with a formatted message. */
  public static KoraException unavailable(String format, Object... args) {
    return new KoraException(ErrorKind.UNAVAILABLE, format.formatted(args));
  }

  /** Returns a {@link ErrorKind#RESOURCE_EXHAUSTED} exception with a formatted message. */
  public static KoraException resourceExhausted(String format, Object... args) {
    return new KoraException(ErrorKind.RESOURCE_EXHAUSTED, format.formatted(args));
  }

  /** Returns an {@link ErrorKind#INTERNAL} exception with a formatted message and its cause. */
  public static KoraException internal(Throwable cause, String format, Object... args) {
    return new KoraException(ErrorKind.INTERNAL, format.formatted(args), cause);
  }
}
