package dev.runkora.cli;

import dev.runkora.common.files.PrivateFiles;
import dev.runkora.common.json.JsonFormatError;
import dev.runkora.common.json.JsonText;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Optional;

/**
 * {@code daemon.json}: where the daemon {@code up} started listens, where its root token is, its
 * data directory and process id. Holds no secret itself, but is private like everything of ours.
 *
 * @param url the daemon's base URL
 * @param tokenFile the root token file
 * @param dataDir the daemon's data directory
 * @param pid the process that runs the daemon
 */
record DaemonFile(String url, Path tokenFile, Path dataDir, long pid) {

  JsonObject toJson() {
    return Json.createObjectBuilder()
        .add("url", url)
        .add("token_file", tokenFile.toString())
        .add("data_dir", dataDir.toString())
        .add("pid", pid)
        .build();
  }

  void write(Path file) throws IOException {
    PrivateFiles.directory(file.getParent());
    PrivateFiles.replace(file, JsonText.pretty(toJson()), false);
  }

  /** Reads the file; empty when it does not exist. */
  static Optional<DaemonFile> read(Path file) {
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException e) {
      throw new CliException("cannot read " + file + ": " + e.getMessage(), e);
    }
    try {
      JsonObject o = JsonText.parseObject(bytes);
      return Optional.of(
          new DaemonFile(
              o.getString("url"),
              Path.of(o.getString("token_file")),
              Path.of(o.getString("data_dir", "")),
              o.getJsonNumber("pid") == null ? 0 : o.getJsonNumber("pid").longValue()));
    } catch (JsonFormatError | NullPointerException | ClassCastException e) {
      throw new CliException(
          file + " is malformed (" + e.getMessage() + "): remove it and start ./kora up again", e);
    }
  }

  /** Deletes the file if it still describes this process's daemon. */
  static void removeIfOurs(Path file, long pid) {
    try {
      Optional<DaemonFile> current = read(file);
      if (current.isPresent() && current.get().pid() == pid) {
        Files.deleteIfExists(file);
      }
    } catch (IOException | CliException e) {
      // Best effort at shutdown: a stale file is detected by the next client as not running.
    }
  }
}
