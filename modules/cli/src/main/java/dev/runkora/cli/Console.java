package dev.runkora.cli;

import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * What a command sees of the world: its output streams, environment and home directory. Tests hand
 * in their own.
 */
record Console(
    InputStream in, PrintStream out, PrintStream err, Map<String, String> env, Path userHome) {

  static Console system() {
    return new Console(
        System.in,
        System.out,
        System.err,
        System.getenv(),
        Path.of(System.getProperty("user.home")));
  }

  /** An environment variable that is set and not blank. */
  Optional<String> env(String name) {
    String v = env.get(name);
    return v == null || v.isBlank() ? Optional.empty() : Optional.of(v);
  }

  /**
   * Where {@code up} keeps its files and records the running daemon: {@code $KORA_HOME}, else
   * {@code $XDG_DATA_HOME/kora}, else {@code ~/.local/share/kora}.
   */
  Path koraHome() {
    return env("KORA_HOME")
        .map(Path::of)
        .or(() -> env("XDG_DATA_HOME").map(d -> Path.of(d, "kora")))
        .orElse(userHome.resolve(".local/share/kora"))
        .toAbsolutePath();
  }

  /** The file {@code up} writes to say where the daemon listens and where its token is. */
  Path daemonFile() {
    return koraHome().resolve("daemon.json");
  }
}
