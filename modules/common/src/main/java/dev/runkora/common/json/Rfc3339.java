package dev.runkora.common.json;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;

/** RFC 3339 times in UTC, as the sandboxd API writes them ({@code 2026-07-06T00:05:00Z}). */
public final class Rfc3339 {

  private static final DateTimeFormatter SECONDS =
      DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss'Z'").withZone(ZoneOffset.UTC);

  private Rfc3339() {}

  /** Formats an instant to whole seconds in UTC. */
  public static String format(Instant instant) {
    return SECONDS.format(instant.truncatedTo(ChronoUnit.SECONDS));
  }

  /** Formats an instant with its fractional seconds, for state files that must keep them. */
  public static String formatPrecise(Instant instant) {
    return DateTimeFormatter.ISO_INSTANT.format(instant);
  }

  /** Parses a time with any offset and optional fractional seconds. */
  public static Instant parse(String text) {
    try {
      return OffsetDateTime.parse(text, DateTimeFormatter.ISO_OFFSET_DATE_TIME).toInstant();
    } catch (DateTimeParseException e) {
      throw new JsonFormatError("\"" + text + "\" is not an RFC 3339 time", e);
    }
  }
}
