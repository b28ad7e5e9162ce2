package dev.runkora.plugin.registry.oci.content;

import dev.runkora.spi.core.KoraException;
import jakarta.json.Json;
import jakarta.json.JsonException;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import java.io.ByteArrayInputStream;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What kora reads from an image configuration: its environment and working directory.
 *
 * @param env the environment, in the image's order
 * @param workingDirectory the working directory, {@code /} when the image names none
 */
record ImageConfig(Map<String, String> env, String workingDirectory) {

  static ImageConfig parse(byte[] content) {
    try (var reader = Json.createReader(new ByteArrayInputStream(content))) {
      JsonObject json = reader.readObject();
      var env = new LinkedHashMap<String, String>();
      String workingDirectory = "/";
      var config = json.getJsonObject("config");
      if (config != null) {
        var list = config.getJsonArray("Env");
        if (list != null) {
          for (var value : list.getValuesAs(JsonString.class)) {
            var text = value.getString();
            int equals = text.indexOf('=');
            if (equals > 0) {
              env.put(text.substring(0, equals), text.substring(equals + 1));
            }
          }
        }
        var directory = config.getString("WorkingDir", "");
        if (!directory.isBlank()) {
          workingDirectory = directory;
        }
      }
      return new ImageConfig(env, workingDirectory);
    } catch (JsonException | ClassCastException e) {
      throw KoraException.invalidArgument(
          "the image configuration is not valid JSON: %s", e.getMessage());
    }
  }
}
