package dev.runkora.vk;

import dev.runkora.common.files.PrivateFiles;
import dev.runkora.common.json.JsonFields;
import dev.runkora.common.json.JsonFormatError;
import dev.runkora.common.json.JsonText;
import dev.runkora.common.json.Rfc3339;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The claims state file: {@code {"claims": {"<ns>/<name>": {id, token, address, podUID, claimedAt,
 * deadline}}}}, written compact, mode 0600, by temporary file and rename, in a 0700 directory that
 * is created again on every write. Older indented files load; a malformed file is fatal (live
 * release authority is never discarded silently).
 */
final class ClaimsFile {
  private final Path path;
  private final ReentrantLock saveLock = new ReentrantLock();

  ClaimsFile(Path path) {
    this.path = path;
  }

  Path path() {
    return path;
  }

  /**
   * Fails unless the state directory exists (or can be made) and this user can create files in it:
   * checked before anything else at start-up, since the file holds the release credentials.
   */
  void checkWritable() {
    Path dir = path.toAbsolutePath().getParent();
    try {
      if (!Files.isDirectory(dir)) {
        PrivateFiles.directory(dir);
      }
      Path probe = Files.createTempFile(dir, ".vk-sandbox-probe-", ".tmp");
      Files.delete(probe);
    } catch (IOException | RuntimeException e) {
      throw new IllegalStateException(
          "claims state is not writable: "
              + dir
              + " ("
              + e.getMessage()
              + "); make the directory writable by this user (the DaemonSet image runs as UID"
              + " 65532) or point --state-path (VK_STATE_PATH) elsewhere",
          e);
    }
  }

  /** The stored claims; empty when the file does not exist. */
  Map<String, Claim> load() {
    byte[] bytes;
    if (!Files.exists(path)) {
      return new LinkedHashMap<>();
    }
    try {
      bytes = Files.readAllBytes(path);
    } catch (NoSuchFileException | java.nio.file.NotDirectoryException e) {
      return new LinkedHashMap<>();
    } catch (IOException e) {
      throw new IllegalStateException(
          "cannot read claims state " + path + ": " + e.getMessage(), e);
    }
    Map<String, Claim> claims = new LinkedHashMap<>();
    try {
      JsonFields top = JsonFields.of(JsonText.parseObject(bytes));
      Instant now = Instant.now();
      top.objectField("claims")
          .ifPresent(
              all -> {
                for (String key : all.object().keySet()) {
                  JsonFields c =
                      all.objectField(key)
                          .orElseThrow(() -> new JsonFormatError("claim " + key + " is null"));
                  claims.put(
                      key,
                      new Claim(
                          c.requiredString("id"),
                          c.requiredString("token"),
                          c.string("address", ""),
                          c.string("podUID", ""),
                          c.has("claimedAt") ? Rfc3339.parse(c.requiredString("claimedAt")) : now,
                          c.has("deadline")
                              ? Optional.of(Rfc3339.parse(c.requiredString("deadline")))
                              : Optional.empty(),
                          c.objectField("owner")
                              .map(
                                  o ->
                                      new Claim.Owner(
                                          o.string("apiVersion", ""),
                                          o.string("kind", ""),
                                          o.string("name", ""),
                                          o.string("uid", "")))));
                }
              });
    } catch (JsonFormatError e) {
      throw new IllegalStateException(
          "claims state "
              + path
              + " is malformed ("
              + e.getMessage()
              + "); it holds release credentials, so vk-sandbox will not start over it: repair or"
              + " move it aside after checking which sandboxes it names",
          e);
    }
    return claims;
  }

  /**
   * Writes the whole table. One lock orders snapshot and rename, so that concurrent writers never
   * lose a row: the caller passes a supplier that takes the snapshot under the lock.
   */
  void save(java.util.function.Supplier<Map<String, Claim>> snapshot) throws IOException {
    save(snapshot, () -> {});
  }

  /** Writes the table and runs {@code afterRename} under the same lock once the file landed. */
  void save(java.util.function.Supplier<Map<String, Claim>> snapshot, Runnable afterRename)
      throws IOException {
    saveLock.lock();
    try {
      byte[] content = encode(snapshot.get());
      Path dir = path.toAbsolutePath().getParent();
      if (!Files.isDirectory(dir)) {
        PrivateFiles.directory(dir);
      }
      PrivateFiles.replace(path, content, false);
      afterRename.run();
    } finally {
      saveLock.unlock();
    }
  }

  /**
   * Encodes the table compactly, keys sorted. Written by hand: it runs on every claim with the
   * whole table, and a builder tree per row made that the slowest step of a Pod's start.
   */
  static byte[] encode(Map<String, Claim> claims) {
    var out = new StringBuilder(64 + claims.size() * 320).append("{\"claims\":{");
    boolean first = true;
    for (var e : new TreeMap<>(claims).entrySet()) {
      Claim c = e.getValue();
      if (!first) {
        out.append(',');
      }
      first = false;
      JsonText.quote(out, e.getKey()).append(":{");
      field(out, "id", c.id()).append(',');
      field(out, "token", c.token());
      if (!c.address().isEmpty()) {
        field(out.append(','), "address", c.address());
      }
      if (!c.podUid().isEmpty()) {
        field(out.append(','), "podUID", c.podUid());
      }
      field(out.append(','), "claimedAt", Rfc3339.format(c.claimedAt()));
      c.deadline().ifPresent(d -> field(out.append(','), "deadline", Rfc3339.format(d)));
      c.owner()
          .ifPresent(
              w -> {
                out.append(",\"owner\":{");
                field(out, "apiVersion", w.apiVersion()).append(',');
                field(out, "kind", w.kind()).append(',');
                field(out, "name", w.name()).append(',');
                field(out, "uid", w.uid()).append('}');
              });
      out.append('}');
    }
    return out.append("}}").toString().getBytes(java.nio.charset.StandardCharsets.UTF_8);
  }

  private static StringBuilder field(StringBuilder out, String name, String value) {
    return JsonText.quote(JsonText.quote(out, name).append(':'), value);
  }
}
