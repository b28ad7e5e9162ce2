package dev.runkora.cli;

import dev.runkora.api.ApiException;
import dev.runkora.api.SandboxdClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Where the daemon is and which token to send, resolved in this order: {@code KORA_URL} and {@code
 * KORA_TOKEN} (or {@code KORA_TOKEN_FILE}); the {@code daemon.json} that {@code up} wrote; {@code
 * http://127.0.0.1:7777} with the default token file.
 *
 * @param url the daemon's base URL
 * @param token the root (or tenant) token; empty for open mode
 */
record Connection(String url, String token) {
  static final String DEFAULT_URL = "http://127.0.0.1:7777";

  static Connection resolve(Console console) {
    Optional<DaemonFile> file = DaemonFile.read(console.daemonFile());
    String url =
        console.env("KORA_URL").orElse(file.map(DaemonFile::url).orElse(DEFAULT_URL)).strip();
    Optional<String> token = console.env("KORA_TOKEN").map(String::strip);
    if (token.isEmpty()) {
      Optional<Path> tokenFile =
          console
              .env("KORA_TOKEN_FILE")
              .map(Path::of)
              .or(() -> file.map(DaemonFile::tokenFile))
              .or(() -> Optional.of(Defaults.tokenFile(Defaults.dataDir(console))));
      token = readToken(tokenFile.get(), console.env("KORA_TOKEN_FILE").isPresent());
    }
    return new Connection(url, token.orElse(""));
  }

  private static Optional<String> readToken(Path file, boolean required) {
    try {
      String t = Files.readString(file).strip();
      return t.isEmpty() ? Optional.empty() : Optional.of(t);
    } catch (NoSuchFileException e) {
      if (required) {
        throw new CliException("token file " + file + " does not exist");
      }
      return Optional.empty();
    } catch (IOException e) {
      throw new CliException("cannot read token file " + file + ": " + e.getMessage(), e);
    }
  }

  SandboxdClient client() {
    return SandboxdClient.builder(url).token(token).build();
  }

  /** Turns an API failure into the message the user sees. */
  CliException explain(ApiException e) {
    if (e.isUnreachable()) {
      return new CliException(
          "kora-sandboxd is not running at " + url + ": start it with ./kora up", e);
    }
    if (e.status() == 401) {
      return new CliException(
          "kora-sandboxd at "
              + url
              + " refused the token ("
              + e.error()
              + "): set KORA_TOKEN or KORA_TOKEN_FILE, or use the daemon started by ./kora up",
          e);
    }
    return new CliException("kora-sandboxd answered " + e.status() + ": " + e.error(), e);
  }
}
