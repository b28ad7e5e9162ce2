package dev.runkora.sandboxd.engine;

import dev.runkora.common.files.PrivateFiles;
import dev.runkora.common.json.JsonFields;
import dev.runkora.common.json.JsonFormatError;
import dev.runkora.common.json.JsonText;
import dev.runkora.sandboxd.SandboxdConfig;
import dev.runkora.spi.core.KoraException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * {@code <data_dir>/pools.json}: written by the first successful {@code PUT /v1/pools}, it
 * overrides the configuration's pools on every later boot.
 */
public final class PoolsFile {

  /** The file's name in the data directory. */
  public static final String FILE = "pools.json";

  private final Path file;

  /** Creates the file's handle in a data directory. */
  public PoolsFile(Path dataDir) {
    this.file = dataDir.resolve(FILE);
  }

  /**
   * Returns the saved pools, or empty when the file does not exist.
   *
   * @throws KoraException {@code INVALID_ARGUMENT} naming the file when it is malformed
   */
  public Optional<List<SandboxdConfig.Pool>> load() {
    if (!Files.exists(file)) {
      return Optional.empty();
    }
    try {
      return Optional.of(parse(JsonFields.of(JsonText.parseObject(Files.readAllBytes(file)))));
    } catch (IOException | JsonFormatError | KoraException | ApiException e) {
      throw KoraException.invalidArgument("malformed %s: %s", file, e.getMessage());
    }
  }

  /** Parses a {@code PUT /v1/pools} body (strict) into checked pools. */
  public static List<SandboxdConfig.Pool> parse(JsonFields body) {
    body.requireOnly(Set.of("pools"));
    var result = new ArrayList<SandboxdConfig.Pool>();
    var keys = new java.util.HashSet<PoolKey>();
    for (JsonFields entry : body.objects("pools")) {
      for (String field :
          List.of(
              "idle_hibernate_seconds", "archive_after_seconds", "archive_delete_after_seconds")) {
        long value = entry.longValue(field, 0);
        if (value < 0) {
          throw ApiException.badRequest(field + " must not be negative");
        }
        if (value > 0) {
          throw ApiException.badRequest(field + " is not supported by kora-sandboxd");
        }
      }
      if (entry.longValue("warm", 0) < 0 || entry.longValue("warm_max", 0) < 0) {
        throw ApiException.badRequest("warm and warm_max must not be negative");
      }
      SandboxdConfig.Pool pool;
      try {
        pool = SandboxdConfig.Pool.parse(entry, false);
      } catch (KoraException e) {
        throw ApiException.badRequest(e.getMessage());
      }
      var key = PoolKey.of(pool.template(), pool.net(), pool.size());
      if (!keys.add(key)) {
        throw ApiException.badRequest("duplicate pool " + key.label());
      }
      result.add(
          new SandboxdConfig.Pool(
              key.template(), key.net(), key.size(), pool.warm(), pool.warmMax()));
    }
    return result;
  }

  /** Replaces the file with these pools. */
  public void save(List<SandboxdConfig.Pool> pools) throws IOException {
    var array = JsonText.array();
    for (var p : pools) {
      array.add(
          JsonText.object()
              .add("template", p.template())
              .add("net", p.net())
              .add("size", p.size())
              .add("warm", p.warm())
              .add("warm_max", p.warmMax()));
    }
    PrivateFiles.replace(
        file, JsonText.pretty(JsonText.object().add("pools", array).build()), true);
  }
}
