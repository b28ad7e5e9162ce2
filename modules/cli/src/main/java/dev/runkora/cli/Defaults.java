package dev.runkora.cli;

import java.nio.file.Path;

/** The defaults of {@code up}: where it listens, keeps data and writes the root token. */
final class Defaults {
  static final String LISTEN = "127.0.0.1:7777";
  static final String TEMPLATE = "host";
  static final int WARM = 4;

  private Defaults() {}

  /** The data directory: the kora home. */
  static Path dataDir(Console console) {
    return console.koraHome();
  }

  /** The root token file inside a data directory (hidden from sandboxes with it). */
  static Path tokenFile(Path dataDir) {
    return dataDir.resolve("root-token");
  }
}
