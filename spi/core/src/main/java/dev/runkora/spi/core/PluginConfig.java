package dev.runkora.spi.core;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The configuration a plugin is created from: flat string keys and string values, as they come from
 * a file, flags or environment variables. The typed readers fail with {@link
 * ErrorKind#INVALID_ARGUMENT} and a message naming the key, so a plugin never has to.
 *
 * @param values the keys and values; copied, never null
 */
public record PluginConfig(Map<String, String> values) {

  /** Copies the values so a config never changes after it is made. */
  public PluginConfig {
    values = Map.copyOf(Objects.requireNonNull(values, "values"));
  }

  /** Returns a configuration with no keys. */
  public static PluginConfig empty() {
    return new PluginConfig(Map.of());
  }

  /** Returns a configuration of the given key and value pairs. */
  public static PluginConfig of(String... keysAndValues) {
    if (keysAndValues.length % 2 != 0) {
      throw new IllegalArgumentException("keys and values come in pairs");
    }
    var map = new TreeMap<String, String>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      map.put(keysAndValues[i], keysAndValues[i + 1]);
    }
    return new PluginConfig(map);
  }

  /**
   * Fails when a key is not one the plugin knows, so a misspelt key is an error instead of a
   * silently ignored setting.
   *
   * @param plugin the plugin's name, for the message
   * @param known every key the plugin reads
   * @return this configuration
   * @throws KoraException {@link ErrorKind#INVALID_ARGUMENT} naming the unknown keys
   */
  public PluginConfig requireKnownKeys(String plugin, Set<String> known) {
    var unknown = new TreeSet<>(values.keySet());
    unknown.removeAll(known);
    if (!unknown.isEmpty()) {
      throw KoraException.invalidArgument(
          "plugin '%s' does not know the setting(s) %s; it reads %s",
          plugin, unknown, new TreeSet<>(known));
    }
    return this;
  }

  /** Returns the value of a key, if set. */
  public Optional<String> string(String key) {
    return Optional.ofNullable(values.get(key));
  }

  /** Returns the value of a key, or a default when the key is not set. */
  public String string(String key, String defaultValue) {
    return values.getOrDefault(key, defaultValue);
  }

  /** Returns a key read as a {@code long}, or a default when it is not set. */
  public long longValue(String key, long defaultValue) {
    var value = values.get(key);
    if (value == null) {
      return defaultValue;
    }
    try {
      return Long.parseLong(value.trim());
    } catch (NumberFormatException e) {
      throw KoraException.invalidArgument(
          "setting '%s' must be a whole number, not '%s'", key, value);
    }
  }

  /** Returns a key read as a {@code double}, or a default when it is not set. */
  public double doubleValue(String key, double defaultValue) {
    var value = values.get(key);
    if (value == null) {
      return defaultValue;
    }
    try {
      return Double.parseDouble(value.trim());
    } catch (NumberFormatException e) {
      throw KoraException.invalidArgument("setting '%s' must be a number, not '%s'", key, value);
    }
  }

  /** Returns a key read as {@code true} or {@code false}, or a default when it is not set. */
  public boolean booleanValue(String key, boolean defaultValue) {
    var value = values.get(key);
    if (value == null) {
      return defaultValue;
    }
    return switch (value.trim().toLowerCase(java.util.Locale.ROOT)) {
      case "true", "yes", "1" -> true;
      case "false", "no", "0" -> false;
      default ->
          throw KoraException.invalidArgument(
              "setting '%s' must be true or false, not '%s'", key, value);
    };
  }

  /**
   * Returns a key read as a duration, or a default when it is not set. Accepts a number of seconds
   * ({@code 90}), a number with a unit ({@code 250ms}, {@code 90s}, {@code 5m}, {@code 1h}) or an
   * ISO-8601 duration ({@code PT1M}).
   */
  public Duration duration(String key, Duration defaultValue) {
    var value = values.get(key);
    if (value == null) {
      return defaultValue;
    }
    var text = value.trim();
    try {
      if (text.startsWith("P") || text.startsWith("p")) {
        return Duration.parse(text);
      }
      if (text.endsWith("ms")) {
        return Duration.ofMillis(Long.parseLong(text.substring(0, text.length() - 2)));
      }
      char unit = text.charAt(text.length() - 1);
      if (Character.isDigit(unit)) {
        return Duration.ofSeconds(Long.parseLong(text));
      }
      long amount = Long.parseLong(text.substring(0, text.length() - 1));
      return switch (unit) {
        case 's' -> Duration.ofSeconds(amount);
        case 'm' -> Duration.ofMinutes(amount);
        case 'h' -> Duration.ofHours(amount);
        default -> throw new NumberFormatException(text);
      };
    } catch (RuntimeException e) {
      throw KoraException.invalidArgument(
          "setting '%s' must be a duration such as 90s, 250ms or 5m, not '%s'", key, value);
    }
  }

  /** Returns a key read as a file system path, or a default when it is not set. */
  public Path path(String key, Path defaultValue) {
    var value = values.get(key);
    return value == null ? defaultValue : Path.of(value);
  }
}
