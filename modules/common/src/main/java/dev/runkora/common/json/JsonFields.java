package dev.runkora.common.json;

import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Typed reading of one JSON object's fields. Each read names the field in its error, and {@link
 * #requireOnly} makes an object strict: a field that was never declared is an error.
 *
 * <p>A JSON {@code null} counts as an absent field, as in Go's {@code encoding/json}.
 */
public final class JsonFields {

  private final JsonObject object;
  private final String where;

  private JsonFields(JsonObject object, String where) {
    this.object = object;
    this.where = where;
  }

  /** Wraps an object; {@code where} prefixes field names in messages (empty for the top level). */
  public static JsonFields of(JsonObject object, String where) {
    return new JsonFields(object, where);
  }

  /** Wraps a top-level object. */
  public static JsonFields of(JsonObject object) {
    return new JsonFields(object, "");
  }

  /** Returns the wrapped object. */
  public JsonObject object() {
    return object;
  }

  /** Fails when the object holds a field not in {@code known}, naming the first such field. */
  public JsonFields requireOnly(Set<String> known) {
    var unknown = new TreeSet<>(object.keySet());
    unknown.removeAll(known);
    if (!unknown.isEmpty()) {
      throw new JsonFormatError("unknown field \"" + name(unknown.first()) + "\"");
    }
    return this;
  }

  /** Returns whether the field is present and not null. */
  public boolean has(String field) {
    var value = object.get(field);
    return value != null && value.getValueType() != JsonValue.ValueType.NULL;
  }

  private Optional<JsonValue> value(String field) {
    var value = object.get(field);
    if (value == null || value.getValueType() == JsonValue.ValueType.NULL) {
      return Optional.empty();
    }
    return Optional.of(value);
  }

  /** Returns a string field, or a default when it is absent. */
  public String string(String field, String defaultValue) {
    return value(field).map(v -> asString(field, v)).orElse(defaultValue);
  }

  /** Returns a string field that must be present. */
  public String requiredString(String field) {
    return value(field)
        .map(v -> asString(field, v))
        .orElseThrow(() -> new JsonFormatError("missing field \"" + name(field) + "\""));
  }

  /** Returns a whole-number field, or a default when it is absent. */
  public long longValue(String field, long defaultValue) {
    return value(field).map(v -> asLong(field, v)).orElse(defaultValue);
  }

  /** Returns a whole-number field that fits an {@code int}, or a default when it is absent. */
  public int intValue(String field, int defaultValue) {
    long value = longValue(field, defaultValue);
    if (value < Integer.MIN_VALUE || value > Integer.MAX_VALUE) {
      throw new JsonFormatError("field \"" + name(field) + "\" is out of range");
    }
    return (int) value;
  }

  /** Returns a boolean field, or a default when it is absent. */
  public boolean bool(String field, boolean defaultValue) {
    return value(field)
        .map(
            v ->
                switch (v.getValueType()) {
                  case TRUE -> true;
                  case FALSE -> false;
                  default -> throw wrongType(field, v, "a boolean");
                })
        .orElse(defaultValue);
  }

  /** Returns an object field, if present. */
  public Optional<JsonFields> objectField(String field) {
    return value(field)
        .map(
            v -> {
              if (v.getValueType() != JsonValue.ValueType.OBJECT) {
                throw wrongType(field, v, "an object");
              }
              return new JsonFields(v.asJsonObject(), name(field) + ".");
            });
  }

  /** Returns an array field of objects; empty when absent. */
  public List<JsonFields> objects(String field) {
    var result = new ArrayList<JsonFields>();
    var array = value(field);
    if (array.isEmpty()) {
      return result;
    }
    if (array.get().getValueType() != JsonValue.ValueType.ARRAY) {
      throw wrongType(field, array.get(), "an array");
    }
    int i = 0;
    for (JsonValue item : array.get().asJsonArray()) {
      String itemName = name(field) + "[" + i + "]";
      if (item.getValueType() != JsonValue.ValueType.OBJECT) {
        throw new JsonFormatError(
            "\"" + itemName + "\" must be an object, not " + JsonText.describe(item));
      }
      result.add(new JsonFields(item.asJsonObject(), itemName + "."));
      i++;
    }
    return result;
  }

  /** Returns an array field of strings; empty when absent. */
  public List<String> strings(String field) {
    var result = new ArrayList<String>();
    var array = value(field);
    if (array.isEmpty()) {
      return result;
    }
    if (array.get().getValueType() != JsonValue.ValueType.ARRAY) {
      throw wrongType(field, array.get(), "an array of strings");
    }
    for (JsonValue item : array.get().asJsonArray()) {
      if (item.getValueType() != JsonValue.ValueType.STRING) {
        throw wrongType(field, item, "an array of strings");
      }
      result.add(((JsonString) item).getString());
    }
    return result;
  }

  /** Returns an object field of string values as an ordered map; empty when absent. */
  public Map<String, String> stringMap(String field) {
    var result = new LinkedHashMap<String, String>();
    var map = value(field);
    if (map.isEmpty()) {
      return result;
    }
    if (map.get().getValueType() != JsonValue.ValueType.OBJECT) {
      throw wrongType(field, map.get(), "an object of strings");
    }
    for (var entry : map.get().asJsonObject().entrySet()) {
      if (entry.getValue().getValueType() != JsonValue.ValueType.STRING) {
        throw wrongType(field + "." + entry.getKey(), entry.getValue(), "a string");
      }
      result.put(entry.getKey(), ((JsonString) entry.getValue()).getString());
    }
    return result;
  }

  private String asString(String field, JsonValue value) {
    if (value.getValueType() != JsonValue.ValueType.STRING) {
      throw wrongType(field, value, "a string");
    }
    return ((JsonString) value).getString();
  }

  private long asLong(String field, JsonValue value) {
    if (value.getValueType() != JsonValue.ValueType.NUMBER) {
      throw wrongType(field, value, "a whole number");
    }
    var number = (JsonNumber) value;
    if (!number.isIntegral()) {
      throw wrongType(field, value, "a whole number");
    }
    try {
      return number.longValueExact();
    } catch (ArithmeticException e) {
      throw new JsonFormatError("field \"" + name(field) + "\" is out of range");
    }
  }

  private JsonFormatError wrongType(String field, JsonValue value, String expected) {
    return new JsonFormatError(
        "field \"" + name(field) + "\" must be " + expected + ", not " + JsonText.describe(value));
  }

  private String name(String field) {
    return where + field;
  }
}
