package dev.runkora.common.json;

import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonBuilderFactory;
import jakarta.json.JsonException;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonStructure;
import jakarta.json.JsonValue;
import jakarta.json.JsonWriterFactory;
import jakarta.json.spi.JsonProvider;
import jakarta.json.stream.JsonGenerator;
import jakarta.json.stream.JsonParser;
import jakarta.json.stream.JsonParserFactory;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/** Parses and prints JSON with one shared provider; every failure is a {@link JsonFormatError}. */
public final class JsonText {

  /**
   * One provider for the process: {@code Json.createObjectBuilder()} and friends look the provider
   * up through {@link java.util.ServiceLoader} on every call, which costs more than the JSON.
   */
  private static final JsonProvider PROVIDER = JsonProvider.provider();

  private static final JsonBuilderFactory BUILDERS = PROVIDER.createBuilderFactory(Map.of());
  private static final JsonParserFactory PARSERS = PROVIDER.createParserFactory(Map.of());
  private static final JsonWriterFactory COMPACT = PROVIDER.createWriterFactory(Map.of());
  private static final JsonWriterFactory PRETTY =
      PROVIDER.createWriterFactory(Map.of(JsonGenerator.PRETTY_PRINTING, true));

  private JsonText() {}

  /** Returns a new object builder from the shared provider (cheap, unlike {@code Json.*}). */
  public static JsonObjectBuilder object() {
    return BUILDERS.createObjectBuilder();
  }

  /** Returns a new array builder from the shared provider. */
  public static JsonArrayBuilder array() {
    return BUILDERS.createArrayBuilder();
  }

  /** Parses UTF-8 bytes that must hold one JSON object and nothing after it. */
  public static JsonObject parseObject(byte[] utf8) {
    return parse(PARSERS.createParser(new ByteArrayInputStream(utf8), StandardCharsets.UTF_8));
  }

  /** Parses a string that must hold one JSON object and nothing after it. */
  public static JsonObject parseObject(String text) {
    return parse(PARSERS.createParser(new StringReader(text)));
  }

  private static JsonObject parse(JsonParser parser) {
    try (parser) {
      if (!parser.hasNext()) {
        throw new JsonFormatError("malformed JSON: empty input");
      }
      var event = parser.next();
      if (event != JsonParser.Event.START_OBJECT) {
        throw new JsonFormatError("expected a JSON object, found " + describe(parser.getValue()));
      }
      JsonObject object = parser.getObject();
      if (parser.hasNext()) {
        throw new JsonFormatError("malformed JSON: content after the object");
      }
      return object;
    } catch (JsonException | IllegalStateException | java.util.NoSuchElementException e) {
      throw new JsonFormatError("malformed JSON: " + e.getMessage(), e);
    }
  }

  /** Prints a value on one line, as UTF-8. */
  public static byte[] compact(JsonStructure value) {
    var out = new ByteArrayOutputStream(256);
    try (var writer = COMPACT.createWriter(out, StandardCharsets.UTF_8)) {
      writer.write(value);
    }
    return out.toByteArray();
  }

  /** Prints a value on one line. */
  public static String compactString(JsonStructure value) {
    return new String(compact(value), StandardCharsets.UTF_8);
  }

  /** Prints a value indented, as UTF-8, for files people read. */
  public static byte[] pretty(JsonStructure value) {
    var out = new ByteArrayOutputStream(1024);
    try (var writer = PRETTY.createWriter(out, StandardCharsets.UTF_8)) {
      writer.write(value);
    }
    out.write('\n');
    return out.toByteArray();
  }

  /**
   * Appends a string as a JSON string literal: for small documents written by hand on hot paths,
   * where a builder and a writer cost more than the text.
   */
  public static StringBuilder quote(StringBuilder out, String value) {
    out.append('"');
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (c < 0x20) {
            out.append("\\u00")
                .append(Character.forDigit(c >> 4, 16))
                .append(Character.forDigit(c & 15, 16));
          } else {
            out.append(c);
          }
        }
      }
    }
    return out.append('"');
  }

  static String describe(JsonValue value) {
    return switch (value.getValueType()) {
      case ARRAY -> "an array";
      case STRING -> "a string";
      case NUMBER -> "a number";
      case TRUE, FALSE -> "a boolean";
      case NULL -> "null";
      case OBJECT -> "an object";
    };
  }
}
