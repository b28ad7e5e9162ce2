package dev.runkora.api;

import jakarta.json.JsonArray;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonReader;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import jakarta.json.JsonWriter;
import jakarta.json.spi.JsonProvider;
import jakarta.json.stream.JsonParsingException;
import java.io.StringReader;
import java.io.StringWriter;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * JSON helpers shared by the wire types. The provider is looked up once: {@code Json.create*}
 * repeats the service lookup on every call, which shows in warm-claim latencies.
 */
final class Wire {
  static final JsonProvider JSON = JsonProvider.provider();

  private Wire() {}

  static JsonObjectBuilder object() {
    return JSON.createObjectBuilder();
  }

  static JsonArrayBuilder array() {
    return JSON.createArrayBuilder();
  }

  static JsonObject parseObject(String text) {
    try (JsonReader reader = JSON.createReader(new StringReader(text))) {
      return reader.readObject();
    } catch (JsonParsingException | ClassCastException e) {
      throw new IllegalArgumentException("not a JSON object: " + e.getMessage(), e);
    } catch (jakarta.json.JsonException e) {
      throw new IllegalArgumentException("not a JSON object: " + e.getMessage(), e);
    }
  }

  static String write(JsonObject object) {
    StringWriter out = new StringWriter();
    try (JsonWriter writer = JSON.createWriter(out)) {
      writer.writeObject(object);
    }
    return out.toString();
  }

  static String string(JsonObject o, String name) {
    JsonValue v = o.get(name);
    if (v == null || v.getValueType() == JsonValue.ValueType.NULL) {
      return "";
    }
    if (v instanceof JsonString s) {
      return s.getString();
    }
    throw new IllegalArgumentException("field " + name + " is not a string");
  }

  static String requiredString(JsonObject o, String name) {
    String s = string(o, name);
    if (s.isEmpty()) {
      throw new IllegalArgumentException("field " + name + " is missing");
    }
    return s;
  }

  static long number(JsonObject o, String name) {
    JsonValue v = o.get(name);
    if (v == null || v.getValueType() == JsonValue.ValueType.NULL) {
      return 0;
    }
    if (v instanceof JsonNumber n) {
      return n.longValue();
    }
    throw new IllegalArgumentException("field " + name + " is not a number");
  }

  static boolean bool(JsonObject o, String name) {
    JsonValue v = o.get(name);
    if (v == null || v.getValueType() == JsonValue.ValueType.NULL) {
      return false;
    }
    if (v == JsonValue.TRUE) {
      return true;
    }
    if (v == JsonValue.FALSE) {
      return false;
    }
    throw new IllegalArgumentException("field " + name + " is not a boolean");
  }

  static Optional<Instant> instant(JsonObject o, String name) {
    String s = string(o, name);
    if (s.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(parseInstant(s, name));
  }

  static Instant parseInstant(String s, String name) {
    try {
      return OffsetDateTime.parse(s).toInstant();
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException("field " + name + " is not an RFC 3339 time: " + s, e);
    }
  }

  static JsonObject objectField(JsonObject o, String name) {
    JsonValue v = o.get(name);
    if (v == null || v.getValueType() == JsonValue.ValueType.NULL) {
      return JsonValue.EMPTY_JSON_OBJECT;
    }
    if (v instanceof JsonObject obj) {
      return obj;
    }
    throw new IllegalArgumentException("field " + name + " is not an object");
  }

  static List<JsonObject> objects(JsonObject o, String name) {
    JsonArray a = arrayField(o, name);
    List<JsonObject> out = new ArrayList<>(a.size());
    for (JsonValue v : a) {
      if (!(v instanceof JsonObject obj)) {
        throw new IllegalArgumentException("field " + name + " holds a non-object");
      }
      out.add(obj);
    }
    return out;
  }

  static List<String> strings(JsonObject o, String name) {
    JsonArray a = arrayField(o, name);
    List<String> out = new ArrayList<>(a.size());
    for (JsonValue v : a) {
      if (!(v instanceof JsonString s)) {
        throw new IllegalArgumentException("field " + name + " holds a non-string");
      }
      out.add(s.getString());
    }
    return List.copyOf(out);
  }

  static Map<String, String> stringMap(JsonObject o, String name) {
    JsonObject m = objectField(o, name);
    Map<String, String> out = new LinkedHashMap<>();
    for (Map.Entry<String, JsonValue> e : m.entrySet()) {
      if (!(e.getValue() instanceof JsonString s)) {
        throw new IllegalArgumentException("field " + name + "." + e.getKey() + " is not a string");
      }
      out.put(e.getKey(), s.getString());
    }
    return out;
  }

  private static JsonArray arrayField(JsonObject o, String name) {
    JsonValue v = o.get(name);
    if (v == null || v.getValueType() == JsonValue.ValueType.NULL) {
      return JsonValue.EMPTY_JSON_ARRAY;
    }
    if (v instanceof JsonArray a) {
      return a;
    }
    throw new IllegalArgumentException("field " + name + " is not an array");
  }

  static JsonArrayBuilder stringArray(List<String> values) {
    JsonArrayBuilder b = array();
    values.forEach(b::add);
    return b;
  }

  static JsonObjectBuilder stringObject(Map<String, String> values) {
    JsonObjectBuilder b = object();
    values.forEach(b::add);
    return b;
  }

  static String nonNull(String s) {
    return s == null ? "" : s;
  }
}
