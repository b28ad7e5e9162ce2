package dev.runkora.plugin.storage.local;

import dev.runkora.spi.core.ErrorKind;
import dev.runkora.spi.core.KoraException;
import dev.runkora.spi.storage.AccessMode;
import dev.runkora.spi.storage.StorageCapability;
import dev.runkora.spi.storage.StorageClass;
import dev.runkora.spi.storage.StorageDescription;
import dev.runkora.spi.storage.Workspace;
import dev.runkora.spi.storage.WorkspaceRequest;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * The live {@code local} class. Layout under the root:
 *
 * <pre>
 * NAME/                    the workspace (a mount point in loop mode)
 * .meta/NAME.properties    its metadata; the workspace exists once this file does
 * .images/NAME.img         its sparse ext4 image (loop mode)
 * </pre>
 *
 * <p>Operations on one name hold that name's lock; different names do not block each other. Steps
 * are ordered so that a crash leaves either no metadata (and leftovers a later provision reuses or
 * a release removes) or a complete workspace: provision writes the metadata last, release removes
 * it last.
 */
final class LocalStorageClass implements StorageClass {

  /** Below this an ext4 file system with a journal does not fit. */
  static final long MINIMUM_LOOP_SIZE = 4L * 1024 * 1024;

  private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9._-]{0,62}");
  private static final String[] LOOP_TOOLS = {
    "mkfs.ext4", "mount", "umount", "losetup", "resize2fs", "e2fsck"
  };

  private final Path root;
  private final Path metaDirectory;
  private final Path imageDirectory;
  private final Enforcement enforcement;
  private final System.Logger logger;
  private final ConcurrentHashMap<String, ReentrantLock> locks = new ConcurrentHashMap<>();

  private LocalStorageClass(Path root, Enforcement enforcement, System.Logger logger) {
    this.root = root;
    this.metaDirectory = root.resolve(".meta");
    this.imageDirectory = root.resolve(".images");
    this.enforcement = enforcement;
    this.logger = logger;
  }

  /**
   * Opens the class on a root: creates its directories, removes temporary files a crash left, and
   * in loop mode checks the tools and mounts every recorded workspace that is not mounted.
   */
  static LocalStorageClass open(Path root, Enforcement enforcement, System.Logger logger) {
    var storage = new LocalStorageClass(root.toAbsolutePath().normalize(), enforcement, logger);
    if (enforcement == Enforcement.LOOP) {
      storage.checkLoopSupport();
    }
    try {
      Files.createDirectories(storage.root);
      Files.createDirectories(storage.metaDirectory);
      Files.createDirectories(storage.imageDirectory);
      storage.removeTemporaryFiles();
    } catch (IOException e) {
      throw KoraException.unavailable(
          "storage plugin 'local' cannot use its root %s: %s", storage.root, e.getMessage());
    }
    storage.remountRecorded();
    return storage;
  }

  private void checkLoopSupport() {
    var missing = new ArrayList<String>(Commands.missingExecutables(LOOP_TOOLS));
    if (!Files.exists(Path.of("/dev/loop-control"))) {
      missing.add("/dev/loop-control");
    }
    if (!missing.isEmpty()) {
      throw KoraException.unavailable(
          "storage plugin 'local' with enforce=loop needs root and %s; missing here: %s",
          String.join(", ", LOOP_TOOLS) + ", /dev/loop-control", String.join(", ", missing));
    }
  }

  private void removeTemporaryFiles() throws IOException {
    for (var directory : List.of(metaDirectory, imageDirectory)) {
      try (var files = Files.list(directory)) {
        for (var file : files.filter(f -> f.getFileName().toString().contains(".tmp-")).toList()) {
          Files.deleteIfExists(file);
        }
      }
    }
  }

  private void remountRecorded() {
    for (var metadata : readAll()) {
      if (metadata.enforcement() == Enforcement.LOOP) {
        var name = metadata.name();
        try {
          withLock(name, () -> ensureMounted(name));
        } catch (KoraException e) {
          throw new KoraException(
              ErrorKind.UNAVAILABLE,
              "storage plugin 'local' cannot mount workspace '%s' again: %s"
                  .formatted(name, e.getMessage()),
              e);
        }
      }
    }
  }

  @Override
  public StorageDescription describe() {
    return StorageDescription.of(
        Set.of(AccessMode.READ_WRITE_ONCE), true, true, enforcement == Enforcement.LOOP);
  }

  @Override
  public Workspace provision(WorkspaceRequest request) {
    if (request.accessMode() != AccessMode.READ_WRITE_ONCE) {
      throw new KoraException(
          ErrorKind.UNSUPPORTED,
          ("storage plugin 'local' keeps workspaces on one node's disk: it supports ReadWriteOnce,"
                  + " not %s (that needs %s)")
              .formatted(request.accessMode().kubernetesName(), StorageCapability.SHARED));
    }
    if (enforcement == Enforcement.LOOP && request.sizeBytes() < MINIMUM_LOOP_SIZE) {
      throw KoraException.invalidArgument(
          "workspace '%s': with enforce=loop the size must be at least %d bytes (4 MiB), not %d",
          request.name(), MINIMUM_LOOP_SIZE, request.sizeBytes());
    }
    return withLock(request.name(), () -> provisionLocked(request));
  }

  private Workspace provisionLocked(WorkspaceRequest request) {
    var name = request.name();
    var existing = readMetadata(name);
    if (existing.isPresent()) {
      var metadata = existing.get();
      if (metadata.sizeBytes() != request.sizeBytes()
          || metadata.accessMode() != request.accessMode()) {
        throw KoraException.alreadyExists(
            "workspace '%s' exists with %d bytes and %s; asked for %d bytes and %s",
            name,
            metadata.sizeBytes(),
            metadata.accessMode().kubernetesName(),
            request.sizeBytes(),
            request.accessMode().kubernetesName());
      }
      if (metadata.enforcement() == Enforcement.LOOP) {
        ensureMounted(name);
      } else if (!Files.isDirectory(directory(name))) {
        throw KoraException.internal(
            null,
            "workspace '%s' is recorded but its directory %s is missing; release it to start over",
            name,
            directory(name));
      }
      return workspace(metadata);
    }
    var metadata =
        new Metadata(name, request.sizeBytes(), request.accessMode(), enforcement, Instant.now());
    if (enforcement == Enforcement.LOOP) {
      createLoopWorkspace(name, request.sizeBytes());
    } else {
      try {
        // A directory left by a provision that crashed before its metadata is reused, not wiped.
        Files.createDirectories(directory(name));
      } catch (IOException e) {
        throw KoraException.internal(
            e, "cannot create workspace directory %s: %s", directory(name), e.getMessage());
      }
    }
    metadata.write(metadataFile(name));
    logger.log(
        System.Logger.Level.INFO,
        "provisioned workspace {0} ({1} bytes, enforce={2}) at {3}",
        name,
        request.sizeBytes(),
        enforcement.configName(),
        directory(name));
    return workspace(metadata);
  }

  private void createLoopWorkspace(String name, long sizeBytes) {
    var image = image(name);
    discardLeftoverOfAnotherSize(name, sizeBytes);
    if (!Files.exists(image)) {
      var usable = usableSpace();
      if (usable < sizeBytes) {
        throw KoraException.resourceExhausted(
            "workspace '%s' needs %d bytes but %s has %d usable", name, sizeBytes, root, usable);
      }
      var temporary = imageDirectory.resolve(name + ".img.tmp-" + UUID.randomUUID());
      try {
        try (var file = new RandomAccessFile(temporary.toFile(), "rw")) {
          file.setLength(sizeBytes);
        }
        Commands.run("mkfs.ext4", "-q", "-F", "-m", "0", temporary.toString());
        // The image becomes visible under its name only once it holds a file system.
        Files.move(temporary, image, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
      } catch (IOException | RuntimeException e) {
        deleteQuietly(temporary);
        if (e instanceof KoraException k) {
          throw k;
        }
        throw KoraException.internal(
            e, "cannot create the image of workspace '%s': %s", name, e.getMessage());
      }
    }
    try {
      ensureMounted(name);
      // A fresh workspace is empty in every mode; e2fsck makes lost+found again when it needs it.
      Files.deleteIfExists(directory(name).resolve("lost+found"));
    } catch (IOException | RuntimeException e) {
      deleteQuietly(image);
      if (e instanceof RuntimeException r) {
        throw r;
      }
      throw KoraException.internal(e, "cannot prepare workspace '%s': %s", name, e.getMessage());
    }
  }

  /**
   * Removes an image that a crashed provision left without metadata when it has another size than
   * asked. Such an image was never handed out (a workspace is handed out only after its metadata is
   * written), so nothing of anyone's is lost; an image of the asked size is kept and reused.
   */
  private void discardLeftoverOfAnotherSize(String name, long sizeBytes) {
    var image = image(name);
    try {
      if (!Files.exists(image) || Files.size(image) == sizeBytes) {
        return;
      }
      var directory = realPath(directory(name));
      if (Commands.mountPoints().contains(directory)) {
        Commands.run("umount", directory.toString());
      }
      Files.delete(image);
    } catch (IOException e) {
      throw KoraException.internal(
          e, "cannot remove the leftover image %s: %s", image, e.getMessage());
    }
  }

  private long usableSpace() {
    try {
      return Files.getFileStore(root).getUsableSpace();
    } catch (IOException e) {
      throw KoraException.unavailable("cannot read the free space of %s: %s", root, e.getMessage());
    }
  }

  private void ensureMounted(String name) {
    var directory = directory(name);
    var image = image(name);
    if (!Files.exists(image)) {
      throw KoraException.internal(
          null, "workspace '%s' is recorded but its image %s is missing", name, image);
    }
    try {
      Files.createDirectories(directory);
    } catch (IOException e) {
      throw KoraException.internal(e, "cannot create %s: %s", directory, e.getMessage());
    }
    if (!isMountPoint(directory)) {
      // A loop device may still hold the image (a sandbox keeps a bind mount of it): mount that
      // device, because a second loop device on the same image would corrupt the file system.
      var device = loopDevice(image);
      if (device.isPresent()) {
        Commands.run(
            "mount", "-t", "ext4", "-o", "nosuid,nodev", device.get(), directory.toString());
      } else {
        Commands.run(
            "mount",
            "-t",
            "ext4",
            "-o",
            "loop,nosuid,nodev",
            image.toString(),
            directory.toString());
      }
    }
  }

  /** Returns the loop device that backs an image, if one does. */
  private static Optional<String> loopDevice(Path image) {
    // "losetup -j IMAGE" prints "/dev/loopN: [....]:... (IMAGE)" per device, nothing when none.
    var output = Commands.run("losetup", "-j", image.toString()).strip();
    if (output.isEmpty()) {
      return Optional.empty();
    }
    var device = output.lines().findFirst().orElseThrow().split(":", 2)[0];
    return device.startsWith("/dev/loop") ? Optional.of(device) : Optional.empty();
  }

  private static boolean isMountPoint(Path directory) {
    return Commands.mountPoints().contains(realPath(directory));
  }

  /** Returns the path the mount table uses for a directory (symbolic links resolved). */
  private static Path realPath(Path directory) {
    try {
      return directory.toRealPath();
    } catch (IOException e) {
      return directory;
    }
  }

  @Override
  public Optional<Workspace> find(String name) {
    requireName(name);
    return readMetadata(name).map(this::workspace);
  }

  @Override
  public List<Workspace> list() {
    return readAll().stream().map(this::workspace).toList();
  }

  private List<Metadata> readAll() {
    try (var files = Files.list(metaDirectory)) {
      var all = new ArrayList<Metadata>();
      for (var file :
          files
              .filter(f -> f.getFileName().toString().endsWith(Metadata.SUFFIX))
              .sorted()
              .toList()) {
        all.add(Metadata.read(file));
      }
      all.sort(Comparator.comparing(Metadata::name));
      return all;
    } catch (IOException | UncheckedIOException e) {
      throw new KoraException(
          ErrorKind.UNAVAILABLE,
          "cannot list the workspaces of %s: %s".formatted(metaDirectory, e.getMessage()),
          e);
    }
  }

  @Override
  public Workspace expand(String name, long sizeBytes) {
    requireName(name);
    return withLock(
        name,
        () -> {
          var metadata =
              readMetadata(name)
                  .orElseThrow(() -> KoraException.notFound("no workspace named '%s'", name));
          if (sizeBytes < metadata.sizeBytes()) {
            throw KoraException.invalidArgument(
                "workspace '%s' has %d bytes and cannot shrink to %d",
                name, metadata.sizeBytes(), sizeBytes);
          }
          if (sizeBytes == metadata.sizeBytes()) {
            return workspace(metadata);
          }
          if (metadata.enforcement() == Enforcement.LOOP) {
            growImage(name, metadata.sizeBytes(), sizeBytes);
          }
          var grown =
              new Metadata(
                  name,
                  sizeBytes,
                  metadata.accessMode(),
                  metadata.enforcement(),
                  metadata.created());
          grown.write(metadataFile(name));
          return workspace(grown);
        });
  }

  /**
   * Grows an image offline: the kernel refuses an online ext4 resize without CAP_SYS_RESOURCE,
   * which root lacks on our nodes. So the workspace is unmounted, checked, resized and mounted
   * again; when something else still holds its file system (a sandbox's bind mount) it is mounted
   * back as it was and the call fails with UNAVAILABLE.
   */
  private void growImage(String name, long from, long to) {
    long usable = usableSpace();
    if (usable < to - from) {
      throw KoraException.resourceExhausted(
          "workspace '%s' needs %d more bytes but %s has %d usable", name, to - from, root, usable);
    }
    ensureMounted(name);
    var image = image(name);
    var directory = realPath(directory(name));
    var umount = unmount(directory);
    if (umount.isPresent() || loopDevice(image).isPresent()) {
      ensureMounted(name);
      throw KoraException.unavailable(
          "workspace '%s' is in use (%s); expand it when no sandbox holds it",
          name, umount.orElse("its file system is mounted elsewhere too"));
    }
    try {
      try (var file = new RandomAccessFile(image.toFile(), "rw")) {
        file.setLength(to);
      }
      // e2fsck exits 1 when it corrected something; resize2fs insists on a fresh check.
      Commands.run(Set.of(0, 1), "e2fsck", "-f", "-p", image.toString());
      Commands.run("resize2fs", image.toString());
    } catch (IOException e) {
      throw KoraException.internal(e, "cannot grow the image %s: %s", image, e.getMessage());
    } finally {
      ensureMounted(name);
    }
  }

  /** Unmounts a directory; returns why it could not, if it could not. */
  private static Optional<String> unmount(Path directory) {
    try {
      Commands.run("umount", directory.toString());
      return Optional.empty();
    } catch (KoraException e) {
      return Optional.of(e.getMessage());
    }
  }

  @Override
  public void release(String name) {
    requireName(name);
    withLock(
        name,
        () -> {
          var directory = directory(name);
          if (Files.exists(directory)) {
            var real = realPath(directory);
            if (Commands.mountPoints().contains(real)) {
              Commands.run("umount", real.toString());
            }
            for (var mount : Commands.mountPoints()) {
              if (mount.startsWith(real)) {
                throw KoraException.internal(
                    null,
                    "workspace '%s' cannot be released while %s is mounted inside it",
                    name,
                    mount);
              }
            }
          }
          try {
            Files.deleteIfExists(image(name));
            deleteTree(directory);
            Files.deleteIfExists(metadataFile(name));
            Metadata.syncDirectory(metaDirectory);
          } catch (IOException e) {
            throw KoraException.internal(
                e, "cannot remove workspace '%s': %s", name, e.getMessage());
          }
          logger.log(System.Logger.Level.INFO, "released workspace {0}", name);
          return null;
        });
  }

  @Override
  public void close() {
    // Nothing is held open; workspaces and their mounts stay for the sandboxes that use them.
  }

  private Workspace workspace(Metadata metadata) {
    var directory = directory(metadata.name());
    return Workspace.of(
        metadata.name(),
        metadata.sizeBytes(),
        metadata.accessMode(),
        directory,
        metadata.enforcement() == Enforcement.LOOP,
        usedBytes(directory));
  }

  /** Sums the sizes of the regular files under a directory; files that vanish are skipped. */
  static long usedBytes(Path directory) {
    var total = new long[1];
    try {
      Files.walkFileTree(
          directory,
          new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) {
              if (attributes.isRegularFile()) {
                total[0] += attributes.size();
              }
              return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) {
              return FileVisitResult.CONTINUE;
            }
          });
    } catch (NoSuchFileException e) {
      return 0;
    } catch (IOException e) {
      return -1;
    }
    return total[0];
  }

  private Optional<Metadata> readMetadata(String name) {
    var file = metadataFile(name);
    try {
      return Optional.of(Metadata.read(file));
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException e) {
      throw new KoraException(
          ErrorKind.UNAVAILABLE,
          "cannot read workspace '%s' (%s): %s".formatted(name, file, e.getMessage()),
          e);
    }
  }

  private static void requireName(String name) {
    if (name == null || !NAME.matcher(name).matches()) {
      throw KoraException.invalidArgument(
          "workspace name must match %s, not '%s'", NAME.pattern(), name);
    }
  }

  private <T> T withLock(String name, Supplier<T> action) {
    var lock = locks.computeIfAbsent(name, n -> new ReentrantLock());
    lock.lock();
    try {
      return action.get();
    } finally {
      lock.unlock();
    }
  }

  private void withLock(String name, Runnable action) {
    withLock(
        name,
        () -> {
          action.run();
          return null;
        });
  }

  private Path directory(String name) {
    return root.resolve(name);
  }

  private Path metadataFile(String name) {
    return metaDirectory.resolve(name + Metadata.SUFFIX);
  }

  private Path image(String name) {
    return imageDirectory.resolve(name + ".img");
  }

  private static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    // walkFileTree does not follow symbolic links: a link inside a workspace is removed, not its
    // target.
    Files.walkFileTree(
        root,
        new SimpleFileVisitor<>() {
          @Override
          public FileVisitResult visitFile(Path file, BasicFileAttributes attributes)
              throws IOException {
            Files.delete(file);
            return FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult postVisitDirectory(Path directory, IOException e)
              throws IOException {
            if (e != null) {
              throw e;
            }
            Files.delete(directory);
            return FileVisitResult.CONTINUE;
          }
        });
  }

  private static void deleteQuietly(Path file) {
    try {
      Files.deleteIfExists(file);
    } catch (IOException e) {
      // Best effort: a later start removes temporary files.
    }
  }
}
