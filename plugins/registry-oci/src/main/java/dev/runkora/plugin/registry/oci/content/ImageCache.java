package dev.runkora.plugin.registry.oci.content;

import dev.runkora.spi.core.ErrorKind;
import dev.runkora.spi.core.KoraException;
import dev.runkora.spi.registry.Descriptor;
import dev.runkora.spi.registry.ImageManifest;
import dev.runkora.spi.registry.ImageReference;
import dev.runkora.spi.registry.RootFilesystem;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Consumer;

/**
 * The on-disk cache a registry plugin keeps in its cache directory:
 *
 * <pre>
 * blobs/sha256/&lt;hex&gt;          content-addressed blobs, shared by every image
 * roots/&lt;hex&gt;/rootfs           an unpacked root, named by its manifest's digest
 * roots/&lt;hex&gt;/image.json       its environment, working directory and the blobs it was made of
 * refs/&lt;hex of reference&gt;      which manifest digest a reference was last materialised from
 * tmp/                           work in progress; emptied when the cache is opened
 * </pre>
 *
 * <p>Nothing appears under {@code blobs}, {@code roots} or {@code refs} until it is complete and
 * verified: it is written under {@code tmp} and renamed into place. Thread-safe. Concurrent
 * materialisations of one image, and concurrent fetches of one blob, share one piece of work;
 * eviction waits for running materialisations.
 */
public final class ImageCache {
  private static final int BUFFER = 64 * 1024;

  private final Path blobs;
  private final Path roots;
  private final Path refs;
  private final Path tmp;
  private final SharedWork<Path> blobWork = new SharedWork<>();
  private final SharedWork<RootFilesystem> rootWork = new SharedWork<>();
  private final ReentrantReadWriteLock evictLock = new ReentrantReadWriteLock();

  /**
   * Opens the cache in a directory, making its folders and deleting what an interrupted run left in
   * {@code tmp}.
   *
   * @throws KoraException {@code UNAVAILABLE} when the directory cannot be used
   */
  public ImageCache(Path directory) {
    var base = directory.toAbsolutePath().normalize();
    this.blobs = base.resolve("blobs").resolve("sha256");
    this.roots = base.resolve("roots");
    this.refs = base.resolve("refs");
    this.tmp = base.resolve("tmp");
    try {
      Files.createDirectories(blobs);
      Files.createDirectories(roots);
      Files.createDirectories(refs);
      if (Files.exists(tmp)) {
        LayerUnpacker.deleteTree(tmp);
      }
      Files.createDirectories(tmp);
    } catch (IOException e) {
      throw new KoraException(
          ErrorKind.UNAVAILABLE, "the image cache at %s cannot be used: %s".formatted(base, e), e);
    }
  }

  /** Returns the path of a blob in the cache (which may not exist). */
  public Path blobPath(String digest) {
    return blobs.resolve(Digests.hex(digest));
  }

  /**
   * Makes sure a blob is in the cache, reading it from a source when it is not. The content is
   * checked against the descriptor's size and digest while it streams to a temporary file, which is
   * renamed into place only when both match.
   *
   * @throws KoraException {@code INVALID_ARGUMENT} when the content does not match; as the source
   *     throws otherwise
   */
  public Path storeBlob(Descriptor descriptor, BlobSource source, Consumer<String> progress) {
    Path target = blobPath(descriptor.digest());
    if (Files.exists(target)) {
      return target;
    }
    return blobWork.run(
        descriptor.digest(),
        () -> {
          if (Files.exists(target)) {
            return target;
          }
          Path partial = tmp.resolve("blob-" + UUID.randomUUID());
          try {
            var sha256 = Digests.newSha256();
            long total = 0;
            try (InputStream in = source.open(descriptor);
                var out = Files.newOutputStream(partial, StandardOpenOption.CREATE_NEW)) {
              byte[] buffer = new byte[BUFFER];
              int n;
              while ((n = in.read(buffer)) > 0) {
                total += n;
                if (total > descriptor.size()) {
                  throw KoraException.invalidArgument(
                      "blob %s is larger than the %d bytes its descriptor states",
                      descriptor.digest(), descriptor.size());
                }
                sha256.update(buffer, 0, n);
                out.write(buffer, 0, n);
              }
            }
            if (total != descriptor.size()) {
              throw KoraException.invalidArgument(
                  "blob %s has %d bytes, but its descriptor states %d",
                  descriptor.digest(), total, descriptor.size());
            }
            var actual = Digests.of(sha256);
            if (!actual.equals(descriptor.digest())) {
              throw KoraException.invalidArgument(
                  "blob %s does not match its digest: its content hashes to %s",
                  descriptor.digest(), actual);
            }
            moveIntoPlace(partial, target);
            progress.accept("fetched " + descriptor.digest() + " (" + total + " bytes)");
            return target;
          } catch (IOException e) {
            throw new KoraException(
                ErrorKind.UNAVAILABLE,
                "blob %s could not be read: %s".formatted(descriptor.digest(), e.getMessage()),
                e);
          } finally {
            deleteQuietly(partial);
          }
        });
  }

  /** Returns the manifest digest a reference was materialised from, if its root is cached. */
  public Optional<String> cachedDigest(ImageReference reference) {
    Optional<String> digest = reference.pinnedDigest();
    if (digest.isEmpty()) {
      var file =
          refs.resolve(
              Digests.hex(Digests.of(reference.canonical().getBytes(StandardCharsets.UTF_8))));
      try {
        var lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        digest = lines.size() >= 2 ? Optional.of(lines.get(1)) : Optional.empty();
      } catch (java.nio.file.NoSuchFileException e) {
        return Optional.empty();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    if (digest.isPresent()
        && digest.get().startsWith("sha256:")
        && Files.exists(roots.resolve(Digests.hex(digest.get())).resolve("image.json"))) {
      return digest;
    }
    return Optional.empty();
  }

  /** Returns the cached root of a reference, without reading any source. */
  public Optional<RootFilesystem> cachedRoot(ImageReference reference) {
    evictLock.readLock().lock();
    try {
      return cachedDigest(reference).map(digest -> loadRoot(reference, digest));
    } finally {
      evictLock.readLock().unlock();
    }
  }

  /**
   * Makes the root filesystem of a platform manifest: fetches the blobs the cache lacks, checks
   * them, and unpacks the layers bottom first into a fresh directory that is renamed into place.
   * Concurrent calls for one manifest share the work.
   *
   * @throws KoraException {@code INVALID_ARGUMENT} for a blob that does not match its digest or a
   *     layer that is not a safe tar, {@code UNSUPPORTED} for a zstd layer, as the source throws
   *     otherwise; nothing half-written stays in the cache
   */
  public RootFilesystem materialize(
      ImageReference reference,
      ImageManifest manifest,
      BlobSource source,
      Consumer<String> progress) {
    evictLock.readLock().lock();
    try {
      var root =
          rootWork.run(
              manifest.digest(),
              () -> {
                var finished = roots.resolve(Digests.hex(manifest.digest()));
                if (Files.exists(finished.resolve("image.json"))) {
                  return loadRoot(reference, manifest.digest());
                }
                return unpack(reference, manifest, source, progress);
              });
      rememberReference(reference, manifest.digest());
      return RootFilesystem.of(
          reference,
          root.digest(),
          root.directory(),
          Map.of(),
          root.env(),
          root.workingDirectory());
    } finally {
      evictLock.readLock().unlock();
    }
  }

  private RootFilesystem unpack(
      ImageReference reference,
      ImageManifest manifest,
      BlobSource source,
      Consumer<String> progress) {
    // Check the media types first, so an image kora cannot unpack fetches nothing.
    manifest.layers().forEach(layer -> LayerUnpacker.isGzip(layer.mediaType()));
    Path configBlob = storeBlob(manifest.config(), source, progress);
    for (var layer : manifest.layers()) {
      storeBlob(layer, source, progress);
    }
    Path work = tmp.resolve("root-" + UUID.randomUUID());
    try {
      var config = ImageConfig.parse(Files.readAllBytes(configBlob));
      Path rootfs = Files.createDirectories(work.resolve("rootfs"));
      Files.setAttribute(rootfs, "unix:mode", 0755);
      var unpacker = new LayerUnpacker(rootfs);
      int index = 0;
      for (var layer : manifest.layers()) {
        index++;
        try (var blob = Files.newInputStream(blobPath(layer.digest()));
            var tar =
                LayerUnpacker.uncompressed(
                    new java.io.BufferedInputStream(blob, BUFFER), layer.mediaType())) {
          unpacker.apply(tar);
        }
        progress.accept(
            "unpacked layer %d of %d (%s)"
                .formatted(index, manifest.layers().size(), layer.digest()));
      }
      var blobsUsed = Json.createArrayBuilder().add(manifest.config().digest());
      manifest.layers().forEach(layer -> blobsUsed.add(layer.digest()));
      var env = Json.createObjectBuilder();
      config.env().forEach(env::add);
      var image =
          Json.createObjectBuilder()
              .add("digest", manifest.digest())
              .add("workingDirectory", config.workingDirectory())
              .add("env", env)
              .add("blobs", blobsUsed)
              .build();
      Files.writeString(work.resolve("image.json"), image.toString(), StandardCharsets.UTF_8);
      var finished = roots.resolve(Digests.hex(manifest.digest()));
      try {
        Files.move(work, finished, StandardCopyOption.ATOMIC_MOVE);
      } catch (FileAlreadyExistsException | DirectoryNotEmptyException e) {
        // Another process finished the same root first; theirs is as good as ours.
      }
      return loadRoot(reference, manifest.digest());
    } catch (IOException e) {
      throw new KoraException(
          ErrorKind.INTERNAL,
          "image %s could not be unpacked: %s".formatted(reference.canonical(), e.getMessage()),
          e);
    } finally {
      deleteQuietly(work);
    }
  }

  private RootFilesystem loadRoot(ImageReference reference, String digest) {
    var directory = roots.resolve(Digests.hex(digest));
    try {
      JsonObject image = readJson(directory.resolve("image.json"));
      var env = new LinkedHashMap<String, String>();
      image
          .getJsonObject("env")
          .forEach((key, value) -> env.put(key, ((JsonString) value).getString()));
      return RootFilesystem.of(
          reference,
          digest,
          directory.resolve("rootfs"),
          Map.of(),
          env,
          image.getString("workingDirectory", "/"));
    } catch (IOException e) {
      throw KoraException.internal(e, "the cached root of %s cannot be read", digest);
    }
  }

  private void rememberReference(ImageReference reference, String digest) {
    if (reference.pinnedDigest().isPresent()) {
      return;
    }
    var canonical = reference.canonical();
    var name = Digests.hex(Digests.of(canonical.getBytes(StandardCharsets.UTF_8)));
    writeAtomically(refs.resolve(name), canonical + "\n" + digest + "\n");
  }

  /**
   * Removes a reference's unpacked root, every reference to it, and the blobs no remaining root was
   * made of. Idempotent; waits for running materialisations.
   */
  public void evict(ImageReference reference) {
    evictLock.writeLock().lock();
    try {
      var digest = cachedDigest(reference);
      if (digest.isEmpty()) {
        return;
      }
      try (var files = Files.list(refs)) {
        for (var file : files.toList()) {
          var lines = Files.readAllLines(file, StandardCharsets.UTF_8);
          if (lines.size() >= 2 && lines.get(1).equals(digest.get())) {
            Files.deleteIfExists(file);
          }
        }
      }
      var root = roots.resolve(Digests.hex(digest.get()));
      var doomed = tmp.resolve("evicted-" + UUID.randomUUID());
      Files.move(root, doomed, StandardCopyOption.ATOMIC_MOVE);
      LayerUnpacker.deleteTree(doomed);
      Set<String> kept = new HashSet<>();
      try (var remaining = Files.list(roots)) {
        for (var other : remaining.toList()) {
          var image = other.resolve("image.json");
          if (Files.exists(image)) {
            readJson(image)
                .getJsonArray("blobs")
                .getValuesAs(JsonString.class)
                .forEach(value -> kept.add(Digests.hex(value.getString())));
          }
        }
      }
      try (var stored = Files.list(blobs)) {
        for (var blob : stored.toList()) {
          if (!kept.contains(blob.getFileName().toString())) {
            Files.deleteIfExists(blob);
          }
        }
      }
    } catch (IOException e) {
      throw KoraException.internal(e, "image %s could not be evicted", reference.canonical());
    } finally {
      evictLock.writeLock().unlock();
    }
  }

  private static JsonObject readJson(Path file) throws IOException {
    try (var reader = Json.createReader(new ByteArrayInputStream(Files.readAllBytes(file)))) {
      return reader.readObject();
    }
  }

  private void writeAtomically(Path target, String content) {
    Path partial = tmp.resolve("file-" + UUID.randomUUID());
    try {
      Files.writeString(partial, content, StandardCharsets.UTF_8, StandardOpenOption.CREATE_NEW);
      moveIntoPlace(partial, target);
    } catch (IOException e) {
      throw KoraException.internal(e, "%s could not be written", target);
    } finally {
      deleteQuietly(partial);
    }
  }

  private static void moveIntoPlace(Path partial, Path target) throws IOException {
    try {
      Files.move(
          partial, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (AtomicMoveNotSupportedException e) {
      throw new IOException("the cache's tmp and its content are on different filesystems", e);
    }
  }

  private static void deleteQuietly(Path path) {
    try {
      LayerUnpacker.deleteTree(path);
    } catch (IOException e) {
      // Left for the next open of the cache, which empties tmp.
    }
  }
}
