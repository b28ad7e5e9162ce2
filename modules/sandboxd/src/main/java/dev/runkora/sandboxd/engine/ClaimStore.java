package dev.runkora.sandboxd.engine;

import dev.runkora.common.files.PrivateFiles;
import dev.runkora.common.json.JsonFields;
import dev.runkora.common.json.JsonFormatError;
import dev.runkora.common.json.JsonText;
import dev.runkora.common.json.Rfc3339;
import dev.runkora.spi.core.KoraException;
import jakarta.json.JsonObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The live claims and their file, {@code <data_dir>/claims.json}: a JSON object keyed by sandbox
 * id.
 *
 * <p>A change to the map is cheap and takes no file lock; it returns a version. {@link #commit}
 * makes sure the file holds at least that version: writers take one lock, and a writer whose
 * version was already covered by another's write returns at once (group commit). Writes are
 * sequenced under that lock, so an older image never replaces a newer one, and the image is made
 * and written outside the lock the claim path contends on.
 */
public final class ClaimStore {

  /** The file's name in the data directory. */
  public static final String FILE = "claims.json";

  private final Path file;
  private final boolean sync;

  /** A claim with its JSON, encoded once when stored so that a commit only concatenates. */
  private record Stored(Claim claim, byte[] json) {
    static Stored of(Claim claim) {
      return new Stored(claim, JsonText.compact(toJson(claim)));
    }
  }

  private final Map<String, Stored> claims = new ConcurrentHashMap<>();
  private final AtomicLong version = new AtomicLong();
  private final ReentrantLock writer = new ReentrantLock();
  private volatile long written;
  private volatile IOException injectedFailure;

  private ClaimStore(Path file, boolean sync) {
    this.file = file;
    this.sync = sync;
  }

  /**
   * Loads the store from a data directory. A missing file is an empty store.
   *
   * @throws KoraException {@code INVALID_ARGUMENT} naming the file when it is malformed; the daemon
   *     then refuses to start
   */
  public static ClaimStore load(Path dataDir, boolean sync) {
    var store = new ClaimStore(dataDir.resolve(FILE), sync);
    removeStaleTemporaries(dataDir);
    if (!Files.exists(store.file)) {
      return store;
    }
    try {
      byte[] bytes = Files.readAllBytes(store.file);
      var root = JsonText.parseObject(bytes);
      for (var entry : root.entrySet()) {
        if (entry.getValue().getValueType() != jakarta.json.JsonValue.ValueType.OBJECT) {
          throw new JsonFormatError("entry \"" + entry.getKey() + "\" is not an object");
        }
        Claim claim =
            fromJson(JsonFields.of(entry.getValue().asJsonObject(), entry.getKey() + "."));
        if (!claim.id().equals(entry.getKey())) {
          throw new JsonFormatError("entry \"" + entry.getKey() + "\" has id " + claim.id());
        }
        store.claims.put(claim.id(), Stored.of(claim));
      }
    } catch (IOException e) {
      throw KoraException.invalidArgument("cannot read %s: %s", store.file, e.getMessage());
    } catch (JsonFormatError | ApiException | IllegalArgumentException e) {
      throw KoraException.invalidArgument(
          "malformed %s: %s (fix or remove the file; the daemon does not start on a state file it"
              + " cannot read)",
          store.file, e.getMessage());
    }
    return store;
  }

  /** Removes temporary files a crash left between writing and renaming. */
  private static void removeStaleTemporaries(Path dataDir) {
    try (var entries = Files.newDirectoryStream(dataDir, FILE + ".tmp-*")) {
      for (Path stale : entries) {
        Files.deleteIfExists(stale);
      }
    } catch (IOException e) {
      // Leftovers are harmless; the next write uses a fresh name.
    }
  }

  /** Returns the file's path. */
  public Path file() {
    return file;
  }

  /** Returns a claim by id. */
  public Optional<Claim> get(String id) {
    return Optional.ofNullable(claims.get(id)).map(Stored::claim);
  }

  /** Returns every live claim. */
  public Collection<Claim> all() {
    return claims.values().stream().map(Stored::claim).toList();
  }

  /** Returns the number of live claims. */
  public int size() {
    return claims.size();
  }

  /** Adds or replaces a claim; returns the version to commit. */
  public long put(Claim claim) {
    claims.put(claim.id(), Stored.of(claim));
    return version.incrementAndGet();
  }

  /** Replaces a claim only if it is still the given one; returns the version, or -1. */
  public long replace(Claim old, Claim updated) {
    var fresh = Stored.of(updated);
    var swapped = new boolean[1];
    claims.computeIfPresent(
        old.id(),
        (id, current) -> {
          if (current.claim() != old) {
            return current;
          }
          swapped[0] = true;
          return fresh;
        });
    return swapped[0] ? version.incrementAndGet() : -1;
  }

  /** Removes a claim if it is still the given one; returns the version, or -1 when gone. */
  public long remove(Claim claim) {
    var removed = new boolean[1];
    claims.computeIfPresent(
        claim.id(),
        (id, current) -> {
          if (current.claim() != claim) {
            return current;
          }
          removed[0] = true;
          return null;
        });
    return removed[0] ? version.incrementAndGet() : -1;
  }

  /** Returns the current version. */
  public long version() {
    return version.get();
  }

  /**
   * Returns once the file holds an image at least as new as {@code atLeast}.
   *
   * @throws IOException when the write failed; the file then still holds an older image
   */
  public void commit(long atLeast) throws IOException {
    if (written >= atLeast) {
      return;
    }
    writer.lock();
    try {
      if (written >= atLeast) {
        return;
      }
      long current = version.get();
      write(new TreeMap<String, Stored>(claims));
      written = current;
    } finally {
      writer.unlock();
    }
  }

  private void write(Map<String, Stored> image) throws IOException {
    var failure = injectedFailure;
    if (failure != null) {
      throw failure;
    }
    var out = new java.io.ByteArrayOutputStream(64 + image.size() * 512);
    out.write('{');
    boolean first = true;
    for (var entry : image.entrySet()) {
      if (!first) {
        out.write(',');
      }
      first = false;
      // Ids are sb_ and 16 hex characters (checked on load): nothing to escape.
      out.write('"');
      out.write(entry.getKey().getBytes(java.nio.charset.StandardCharsets.US_ASCII));
      out.write('"');
      out.write(':');
      out.write(entry.getValue().json());
    }
    out.write('}');
    PrivateFiles.replace(file, out.toByteArray(), sync);
  }

  /** Makes every later write fail (tests of the rollback path); null to stop. */
  public void failWritesWith(IOException failure) {
    injectedFailure = failure;
  }

  static JsonObject toJson(Claim claim) {
    var env = JsonText.object();
    claim.env().forEach(env::add);
    var mounts = JsonText.array();
    for (ClaimMount m : claim.mounts()) {
      mounts.add(
          JsonText.object()
              .add("host_path", m.hostPath())
              .add("path", m.path())
              .add("read_only", m.readOnly())
              .add("workspace", m.workspace()));
    }
    return JsonText.object()
        .add("id", claim.id())
        .add("vm_name", claim.vmName())
        .add("key", claim.key().toJson())
        .add("token", claim.token())
        .add("deadline", Rfc3339.formatPrecise(claim.deadline()))
        .add("lease_seconds", claim.leaseSeconds())
        .add("tenant", claim.tenant())
        .add("claim_ref", claim.claimRef())
        .add("claimed_at", Rfc3339.formatPrecise(claim.claimedAt()))
        .add("env", env)
        .add("mounts", mounts)
        .build();
  }

  static Claim fromJson(JsonFields json) {
    var key = json.objectField("key").orElseThrow(() -> new JsonFormatError("missing key"));
    var mounts = new ArrayList<ClaimMount>();
    for (JsonFields m : json.objects("mounts")) {
      mounts.add(
          new ClaimMount(
              m.requiredString("host_path"),
              m.requiredString("path"),
              m.bool("read_only", false),
              m.string("workspace", "")));
    }
    String id = json.requiredString("id");
    if (!id.matches("sb_[0-9a-f]{16}")) {
      throw new JsonFormatError("id " + id + " is not a sandbox id");
    }
    String vmName = json.requiredString("vm_name");
    if (!vmName.startsWith(Ids.VM_PREFIX)) {
      throw new JsonFormatError("vm_name " + vmName + " is not one of ours");
    }
    var deadline = Rfc3339.parse(json.requiredString("deadline"));
    return new Claim(
        id,
        vmName,
        PoolKey.of(key.requiredString("template"), key.string("net", ""), key.string("size", "")),
        json.requiredString("token"),
        deadline,
        json.longValue("lease_seconds", Lease.DEFAULT_SECONDS),
        json.string("tenant", ""),
        json.string("claim_ref", ""),
        json.has("claimed_at") ? Rfc3339.parse(json.requiredString("claimed_at")) : deadline,
        json.stringMap("env"),
        mounts);
  }
}
