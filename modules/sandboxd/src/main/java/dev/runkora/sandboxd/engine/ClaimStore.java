package dev.runkora.sandboxd.engine;

import dev.runkora.common.files.PrivateFiles;
import dev.runkora.common.json.JsonFields;
import dev.runkora.common.json.JsonFormatError;
import dev.runkora.common.json.JsonText;
import dev.runkora.common.json.Rfc3339;
import dev.runkora.spi.core.KoraException;
import jakarta.json.JsonObject;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The live claims and their files: {@code <data_dir>/claims.json}, a JSON object keyed by sandbox
 * id, and {@code <data_dir>/claims.journal}, the changes made since that file was last written.
 *
 * <p>A change to the map is cheap and takes no file lock; it returns a version. {@link #commit}
 * makes sure the files hold at least that version: writers take one lock, and a writer whose
 * version was already covered by another's write returns at once (group commit). A commit appends
 * one line per changed claim to the journal ({@code {"put":{...}}} or {@code {"del":"sb_..."}}) in
 * a single write, fsynced when {@code sync_claims} is on; a write either happens whole or not at
 * all when the process dies, so a reader sees old or new state, never a mix. Replacing {@code
 * claims.json} by temporary file and rename (which ext4 makes wait for the new file's data to be
 * written out, milliseconds on a busy disk) happens only when the journal has grown past a bound
 * and on start, which folds the journal into the file and removes it.
 */
public final class ClaimStore {

  /** The file's name in the data directory. */
  public static final String FILE = "claims.json";

  /** The journal's name in the data directory. */
  public static final String JOURNAL = "claims.journal";

  /** The journal is folded into the file once it is this large and four times the file. */
  private static final long MIN_COMPACT_BYTES = 256 << 10;

  private static final java.util.Set<java.nio.file.attribute.PosixFilePermission> PRIVATE =
      java.nio.file.attribute.PosixFilePermissions.fromString("rw-------");

  private final Path file;
  private final Path journal;
  private final boolean sync;

  /** A claim with its JSON, encoded once when stored so that a commit only concatenates. */
  private record Stored(Claim claim, byte[] json) {
    static Stored of(Claim claim) {
      return new Stored(claim, encode(claim));
    }
  }

  private final Map<String, Stored> claims = new ConcurrentHashMap<>();
  private final java.util.Set<String> dirty = ConcurrentHashMap.newKeySet();
  private final AtomicLong version = new AtomicLong();
  private final ReentrantLock writer = new ReentrantLock();
  private volatile long written;
  private volatile IOException injectedFailure;
  // Guarded by writer.
  private long journalBytes;
  private long compactAt = MIN_COMPACT_BYTES;
  private boolean rewrite;
  private FileChannel journalChannel;

  private ClaimStore(Path dataDir, boolean sync) {
    this.file = dataDir.resolve(FILE);
    this.journal = dataDir.resolve(JOURNAL);
    this.sync = sync;
  }

  /**
   * Loads the store from a data directory. A missing file is an empty store.
   *
   * @throws KoraException {@code INVALID_ARGUMENT} naming the file when it is malformed; the daemon
   *     then refuses to start
   */
  public static ClaimStore load(Path dataDir, boolean sync) {
    var store = new ClaimStore(dataDir, sync);
    removeStaleTemporaries(dataDir);
    store.read();
    if (Files.exists(store.journal)) {
      try {
        store.writer.lock();
        try {
          store.compact();
        } finally {
          store.writer.unlock();
        }
      } catch (IOException e) {
        throw KoraException.unavailable(
            "cannot fold %s into %s: %s", store.journal, store.file, e.getMessage());
      }
    }
    return store;
  }

  /**
   * Returns the claims the files of a data directory hold ({@code claims.json} with the journal
   * applied), as one JSON object keyed by sandbox id; for tests and tools.
   *
   * @throws KoraException {@code INVALID_ARGUMENT} naming the file when one is malformed
   */
  public static JsonObject image(Path dataDir) {
    var store = new ClaimStore(dataDir, false);
    store.read();
    var image = JsonText.object();
    new TreeMap<>(store.claims).forEach((id, stored) -> image.add(id, toJson(stored.claim())));
    return image.build();
  }

  private void read() {
    Path reading = file;
    try {
      if (Files.exists(file)) {
        var root = JsonText.parseObject(Files.readAllBytes(file));
        for (var entry : root.entrySet()) {
          if (entry.getValue().getValueType() != jakarta.json.JsonValue.ValueType.OBJECT) {
            throw new JsonFormatError("entry \"" + entry.getKey() + "\" is not an object");
          }
          Claim claim =
              fromJson(JsonFields.of(entry.getValue().asJsonObject(), entry.getKey() + "."));
          if (!claim.id().equals(entry.getKey())) {
            throw new JsonFormatError("entry \"" + entry.getKey() + "\" has id " + claim.id());
          }
          claims.put(claim.id(), Stored.of(claim));
        }
      }
      reading = journal;
      if (Files.exists(journal)) {
        replay(Files.readAllBytes(journal));
      }
    } catch (IOException e) {
      throw KoraException.invalidArgument("cannot read %s: %s", reading, e.getMessage());
    } catch (JsonFormatError | ApiException | IllegalArgumentException e) {
      throw KoraException.invalidArgument(
          "malformed %s: %s (fix or remove the file; the daemon does not start on a state file it"
              + " cannot read)",
          reading, e.getMessage());
    }
  }

  /** Applies the journal's complete lines; a last line without its newline was never committed. */
  private void replay(byte[] bytes) {
    int start = 0;
    int lineNumber = 0;
    for (int i = 0; i < bytes.length; i++) {
      if (bytes[i] != '\n') {
        continue;
      }
      lineNumber++;
      var line = JsonText.parseObject(java.util.Arrays.copyOfRange(bytes, start, i));
      start = i + 1;
      var fields = JsonFields.of(line, "line " + lineNumber + ".");
      var put = fields.objectField("put");
      if (put.isPresent()) {
        Claim claim = fromJson(put.get());
        claims.put(claim.id(), Stored.of(claim));
      } else if (fields.has("del")) {
        claims.remove(fields.requiredString("del"));
      } else {
        throw new JsonFormatError("line " + lineNumber + " is neither put nor del");
      }
    }
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
    dirty.add(claim.id());
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
    if (!swapped[0]) {
      return -1;
    }
    dirty.add(old.id());
    return version.incrementAndGet();
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
    if (!removed[0]) {
      return -1;
    }
    dirty.add(claim.id());
    return version.incrementAndGet();
  }

  /** Returns the current version. */
  public long version() {
    return version.get();
  }

  /**
   * Returns once the files hold an image at least as new as {@code atLeast}.
   *
   * @throws IOException when the write failed; the files then still hold an older image
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
      // Every change up to this version marked its claim dirty before taking its version.
      long current = version.get();
      var changed = new ArrayList<String>(dirty.size() + 4);
      for (var it = dirty.iterator(); it.hasNext(); ) {
        changed.add(it.next());
        it.remove();
      }
      try {
        var failure = injectedFailure;
        if (failure != null) {
          throw failure;
        }
        if (rewrite || journalBytes >= compactAt) {
          compact();
        } else {
          append(changed);
        }
      } catch (IOException | RuntimeException e) {
        dirty.addAll(changed);
        // A failed append may have left part of a line: start over from a whole file.
        rewrite = true;
        throw e;
      }
      written = current;
    } finally {
      writer.unlock();
    }
  }

  /** Appends the changed claims' lines to the journal in one write. */
  private void append(List<String> ids) throws IOException {
    if (ids.isEmpty()) {
      return;
    }
    var out = new java.io.ByteArrayOutputStream(ids.size() * 512);
    for (String id : ids) {
      var stored = claims.get(id);
      // Ids are sb_ and 16 hex characters (checked on load): nothing to escape.
      byte[] ascii = id.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
      if (stored != null) {
        out.write(PUT);
        out.write(stored.json());
        out.write('}');
      } else {
        out.write(DEL);
        out.write(ascii);
        out.write('"');
        out.write('}');
      }
      out.write('\n');
    }
    boolean fresh = journalBytes == 0;
    if (journalChannel == null) {
      journalChannel =
          FileChannel.open(
              journal,
              java.util.EnumSet.of(
                  StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND),
              java.nio.file.attribute.PosixFilePermissions.asFileAttribute(PRIVATE));
    }
    var buffer = java.nio.ByteBuffer.wrap(out.toByteArray());
    while (buffer.hasRemaining()) {
      journalChannel.write(buffer);
    }
    if (sync) {
      journalChannel.force(false);
    }
    if (sync && fresh) {
      try (var dir = FileChannel.open(journal.toAbsolutePath().getParent())) {
        dir.force(true);
      }
    }
    journalBytes += out.size();
  }

  /** Replaces {@code claims.json} with the whole map and removes the journal it now covers. */
  private void compact() throws IOException {
    byte[] image = image(new TreeMap<String, Stored>(claims));
    PrivateFiles.replace(file, image, sync);
    closeJournal();
    // Should the process die before this delete, replaying the journal over the new file gives
    // the file's state again or that of the last answered change: either is a committed state.
    Files.deleteIfExists(journal);
    journalBytes = 0;
    compactAt = Math.max(MIN_COMPACT_BYTES, 4L * image.length);
    rewrite = false;
  }

  private static final byte[] PUT =
      "{\"put\":".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
  private static final byte[] DEL =
      "{\"del\":\"".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

  private static byte[] image(Map<String, Stored> image) throws IOException {
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
    return out.toByteArray();
  }

  private void closeJournal() throws IOException {
    var channel = journalChannel;
    journalChannel = null;
    if (channel != null) {
      channel.close();
    }
  }

  /** Closes the journal; a later commit opens it again. */
  public void close() {
    writer.lock();
    try {
      closeJournal();
    } catch (IOException e) {
      // Every write went through already; nothing is lost by a failed close.
    } finally {
      writer.unlock();
    }
  }

  /** Makes every later write fail (tests of the rollback path); null to stop. */
  public void failWritesWith(IOException failure) {
    injectedFailure = failure;
  }

  /**
   * Returns a claim's JSON as UTF-8: the document {@link #toJson} builds, written by hand, since
   * every claim, renewal and restart encodes one on the claim path.
   */
  static byte[] encode(Claim claim) {
    var out = new StringBuilder(384);
    field(out.append('{'), "id", claim.id());
    field(out.append(','), "vm_name", claim.vmName());
    out.append(",\"key\":{");
    field(out, "template", claim.key().template());
    field(out.append(','), "net", claim.key().net());
    field(out.append(','), "size", claim.key().size());
    out.append('}');
    field(out.append(','), "token", claim.token());
    field(out.append(','), "deadline", Rfc3339.formatPrecise(claim.deadline()));
    out.append(",\"lease_seconds\":").append(claim.leaseSeconds());
    field(out.append(','), "tenant", claim.tenant());
    field(out.append(','), "claim_ref", claim.claimRef());
    field(out.append(','), "claimed_at", Rfc3339.formatPrecise(claim.claimedAt()));
    out.append(",\"env\":{");
    boolean first = true;
    for (var e : claim.env().entrySet()) {
      field(first ? out : out.append(','), e.getKey(), e.getValue());
      first = false;
    }
    out.append("},\"mounts\":[");
    first = true;
    for (ClaimMount m : claim.mounts()) {
      out.append(first ? "{" : ",{");
      first = false;
      field(out, "host_path", m.hostPath());
      field(out.append(','), "path", m.path());
      out.append(",\"read_only\":").append(m.readOnly());
      field(out.append(','), "workspace", m.workspace());
      out.append('}');
    }
    return out.append("]}").toString().getBytes(java.nio.charset.StandardCharsets.UTF_8);
  }

  private static void field(StringBuilder out, String name, String value) {
    JsonText.quote(out, name).append(':');
    JsonText.quote(out, value);
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
