package dev.runkora.plugin.storage.local;

import dev.runkora.spi.core.KoraException;
import dev.runkora.spi.storage.AccessMode;
import java.io.IOException;
import java.io.StringReader;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.Locale;
import java.util.Properties;
import java.util.UUID;

/**
 * What the class records of a workspace, one small properties file per workspace. The file is
 * written to a temporary name, synced, and renamed over the target, so a reader sees the old file
 * or the new one, never half of one. Its presence is what makes a workspace exist.
 */
record Metadata(
    String name, long sizeBytes, AccessMode accessMode, Enforcement enforcement, Instant created) {

  static final String SUFFIX = ".properties";

  static Metadata read(Path file) throws IOException {
    var properties = new Properties();
    properties.load(new StringReader(Files.readString(file, StandardCharsets.UTF_8)));
    try {
      return new Metadata(
          required(properties, "name"),
          Long.parseLong(required(properties, "sizeBytes")),
          AccessMode.valueOf(required(properties, "accessMode")),
          Enforcement.valueOf(required(properties, "enforcement").toUpperCase(Locale.ROOT)),
          Instant.parse(required(properties, "created")));
    } catch (RuntimeException e) {
      throw new IOException("malformed workspace metadata " + file + ": " + e.getMessage(), e);
    }
  }

  private static String required(Properties properties, String key) {
    var value = properties.getProperty(key);
    if (value == null) {
      throw new IllegalArgumentException("no '" + key + "'");
    }
    return value;
  }

  void write(Path file) {
    var text =
        """
        # kora storage plugin 'local': one workspace. Written atomically; do not edit.
        name=%s
        sizeBytes=%d
        accessMode=%s
        enforcement=%s
        created=%s
        """
            .formatted(name, sizeBytes, accessMode.name(), enforcement.configName(), created);
    var temporary = file.resolveSibling(file.getFileName() + ".tmp-" + UUID.randomUUID());
    try {
      try (var channel =
          FileChannel.open(temporary, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
        channel.write(StandardCharsets.UTF_8.encode(text));
        channel.force(true);
      }
      Files.move(
          temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      syncDirectory(file.getParent());
    } catch (IOException e) {
      try {
        Files.deleteIfExists(temporary);
      } catch (IOException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw KoraException.internal(
          e, "cannot write workspace metadata %s: %s", file, e.getMessage());
    }
  }

  static void syncDirectory(Path directory) throws IOException {
    try (var channel = FileChannel.open(directory, StandardOpenOption.READ)) {
      channel.force(true);
    }
  }
}
