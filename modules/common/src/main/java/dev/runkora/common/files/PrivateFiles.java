package dev.runkora.common.files;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Files that hold secrets or state: directories of mode 0700, files of mode 0600, and whole-file
 * replacement by writing a temporary file and renaming it over the target, so that a reader (or a
 * restart after a crash) sees either the old content or the new, never a mix.
 */
public final class PrivateFiles {

  private static final Set<PosixFilePermission> DIRECTORY =
      PosixFilePermissions.fromString("rwx------");
  private static final Set<PosixFilePermission> FILE = PosixFilePermissions.fromString("rw-------");

  private PrivateFiles() {}

  /** Creates a directory and its parents when missing, and sets it to mode 0700. */
  public static Path directory(Path dir) throws IOException {
    try {
      Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(DIRECTORY));
    } catch (FileAlreadyExistsException e) {
      // A dangling symlink or a file in the way: let the permission change below report it.
    }
    Files.setPosixFilePermissions(dir, DIRECTORY);
    return dir;
  }

  /**
   * Replaces a file's content: writes {@code target.tmp-*} with mode 0600, optionally forces it to
   * disk, renames it over {@code target}, and optionally forces the directory entry too.
   *
   * @param sync whether to fsync the file and its directory (durable across a power loss, not only
   *     across a crash of this process)
   */
  public static void replace(Path target, byte[] content, boolean sync) throws IOException {
    Path dir = target.toAbsolutePath().getParent();
    Path temp =
        dir.resolve(
            target.getFileName()
                + ".tmp-"
                + Long.toHexString(ThreadLocalRandom.current().nextLong() >>> 1));
    try {
      try (var channel =
          FileChannel.open(
              temp,
              Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE),
              PosixFilePermissions.asFileAttribute(FILE))) {
        var buffer = ByteBuffer.wrap(content);
        while (buffer.hasRemaining()) {
          channel.write(buffer);
        }
        if (sync) {
          channel.force(true);
        }
      }
      try {
        Files.move(
            temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        throw new IOException("cannot rename atomically onto " + target, e);
      }
      if (sync) {
        try (var channel = FileChannel.open(dir, StandardOpenOption.READ)) {
          channel.force(true);
        }
      }
    } finally {
      Files.deleteIfExists(temp);
    }
  }

  /** Writes a new secret file of mode 0600 (replacing an existing one atomically). */
  public static void writeSecret(Path target, String content) throws IOException {
    replace(target, content.getBytes(java.nio.charset.StandardCharsets.UTF_8), true);
  }
}
