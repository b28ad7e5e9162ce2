package dev.runkora.api;

import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonValue;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Body of {@code POST /v1/sandboxes/{id}/exec} (and of kora's streaming exec).
 *
 * @param argv the command and its arguments; no shell is implied; not empty
 * @param cwd working directory; empty for the sandbox default
 * @param env variables added to the sandbox's base environment
 * @param timeoutSeconds 0 for no limit
 */
public record ExecRequest(
    List<String> argv, String cwd, Map<String, String> env, long timeoutSeconds) {

  private static final Set<String> FIELDS = Set.of("argv", "cwd", "env", "timeout_seconds");

  /** Rejects what the server rejects: an empty argv and a negative timeout. */
  public ExecRequest {
    Objects.requireNonNull(argv, "argv");
    if (argv.isEmpty()) {
      throw new IllegalArgumentException("argv must not be empty");
    }
    argv = List.copyOf(argv);
    cwd = Wire.nonNull(cwd);
    env = env == null ? Map.of() : Map.copyOf(env);
    if (timeoutSeconds < 0) {
      throw new IllegalArgumentException("timeout_seconds must not be negative");
    }
  }

  /** An exec of {@code argv} with every other field at its default. */
  public static ExecRequest of(List<String> argv) {
    return new ExecRequest(argv, "", Map.of(), 0);
  }

  /** An exec of {@code argv} with every other field at its default. */
  public static ExecRequest of(String... argv) {
    return of(List.of(argv));
  }

  /** The body; the server is strict, so only the contract's fields are written. */
  public JsonObject toJson() {
    JsonObjectBuilder b = Wire.object().add("argv", Wire.stringArray(argv));
    if (!cwd.isEmpty()) {
      b.add("cwd", cwd);
    }
    if (!env.isEmpty()) {
      b.add("env", Wire.stringObject(env));
    }
    if (timeoutSeconds != 0) {
      b.add("timeout_seconds", timeoutSeconds);
    }
    return b.build();
  }

  /**
   * Reads an exec body strictly, as the server must: an unknown field is an error.
   *
   * @throws IllegalArgumentException naming the first unknown field, or a malformed one
   */
  public static ExecRequest fromJson(JsonObject o) {
    for (String name : o.keySet()) {
      if (!FIELDS.contains(name)) {
        throw new IllegalArgumentException("unknown field " + name);
      }
    }
    if (o.get("argv") == null || o.get("argv").getValueType() == JsonValue.ValueType.NULL) {
      throw new IllegalArgumentException("argv must not be empty");
    }
    return new ExecRequest(
        Wire.strings(o, "argv"),
        Wire.string(o, "cwd"),
        Wire.stringMap(o, "env"),
        Wire.number(o, "timeout_seconds"));
  }
}
