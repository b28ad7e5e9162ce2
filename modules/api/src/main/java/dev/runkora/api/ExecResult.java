package dev.runkora.api;

import jakarta.json.JsonObject;

/**
 * Answer of the buffered exec.
 *
 * @param exitCode the command's exit code
 * @param stdout standard output as text (invalid UTF-8 became U+FFFD on the server)
 * @param stderr standard error as text
 */
public record ExecResult(int exitCode, String stdout, String stderr) {

  /** Normalizes absent values. */
  public ExecResult {
    stdout = Wire.nonNull(stdout);
    stderr = Wire.nonNull(stderr);
  }

  /** The response body. */
  public JsonObject toJson() {
    return Wire.object()
        .add("exit_code", exitCode)
        .add("stdout", stdout)
        .add("stderr", stderr)
        .build();
  }

  /** Reads an exec answer. */
  public static ExecResult fromJson(JsonObject o) {
    if (!o.containsKey("exit_code")) {
      throw new IllegalArgumentException("field exit_code is missing");
    }
    return new ExecResult(
        (int) Wire.number(o, "exit_code"), Wire.string(o, "stdout"), Wire.string(o, "stderr"));
  }
}
