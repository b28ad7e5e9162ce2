package dev.runkora.plugin.registry.oci.content;

import dev.runkora.spi.core.ErrorKind;
import dev.runkora.spi.core.KoraException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.zip.GZIPInputStream;

/**
 * Applies image layers, bottom first, to a root directory: files, directories, symbolic and hard
 * links, whiteouts ({@code .wh.<name>} deletes a lower layer's entry) and opaque directories
 * ({@code .wh..wh..opq} hides everything lower layers put in that directory).
 *
 * <p>Every entry is checked before anything is written for it. Refused with {@code
 * INVALID_ARGUMENT}: absolute names, names with a {@code ..} component, device nodes, and any write
 * or hard link whose path, followed through the symbolic links already in the root, would leave the
 * root. The final component of an entry is never followed: an existing link there is replaced.
 * Named pipes are skipped. The caller unpacks into a directory of its own and deletes it on
 * failure, so a refused layer leaves nothing behind.
 */
public final class LayerUnpacker {
  private static final String WHITEOUT = ".wh.";
  private static final String OPAQUE = ".wh..wh..opq";
  private static final int MAX_LINK_HOPS = 40;
  private static final boolean ROOT_USER = "root".equals(System.getProperty("user.name"));

  private final Path root;

  /**
   * Unpacks into a root directory, which must exist.
   *
   * @param root the root directory; it is made absolute and normalised
   */
  public LayerUnpacker(Path root) {
    this.root = root.toAbsolutePath().normalize();
  }

  /**
   * Checks that a layer media type is one kora unpacks, and says whether it is gzip-compressed.
   *
   * @throws KoraException {@code UNSUPPORTED} for zstd and unknown layer media types
   */
  public static boolean isGzip(String mediaType) {
    var type = mediaType.toLowerCase(Locale.ROOT);
    if (type.endsWith("+zstd") || type.endsWith(".zstd")) {
      throw new KoraException(
          ErrorKind.UNSUPPORTED,
          "layer media type '%s' is zstd-compressed; kora reads gzip and uncompressed layers only"
              .formatted(mediaType));
    }
    if (type.endsWith("+gzip") || type.endsWith(".gzip") || type.endsWith(".tar.gz")) {
      return true;
    }
    if (type.endsWith(".tar")) {
      return false;
    }
    throw new KoraException(
        ErrorKind.UNSUPPORTED,
        "layer media type '%s' is not a tar layer kora can unpack".formatted(mediaType));
  }

  /**
   * Returns the uncompressed tar stream of a layer blob of a media type.
   *
   * @throws KoraException {@code UNSUPPORTED} as {@link #isGzip}, {@code INVALID_ARGUMENT} for a
   *     blob that is not gzip though its media type says so
   */
  public static InputStream uncompressed(InputStream blob, String mediaType) throws IOException {
    if (!isGzip(mediaType)) {
      return blob;
    }
    try {
      return new GZIPInputStream(blob, 64 * 1024);
    } catch (java.util.zip.ZipException | java.io.EOFException e) {
      throw KoraException.invalidArgument("layer is not valid gzip: %s", e.getMessage());
    }
  }

  /**
   * Applies one uncompressed layer.
   *
   * @throws KoraException {@code INVALID_ARGUMENT} for an unsafe or malformed entry
   * @throws IOException when the root cannot be written
   */
  public void apply(InputStream tar) throws IOException {
    var reader = new TarReader(tar);
    Set<Path> written = new HashSet<>();
    Map<Path, Integer> directoryModes = new LinkedHashMap<>();
    try {
      while (true) {
        var next = reader.next();
        if (next.isEmpty()) {
          break;
        }
        var entry = next.get();
        applyEntry(entry, reader, written, directoryModes);
      }
    } catch (java.io.EOFException e) {
      throw KoraException.invalidArgument("layer is not a valid tar archive: %s", e.getMessage());
    } catch (java.util.zip.ZipException e) {
      throw KoraException.invalidArgument("layer is not valid gzip: %s", e.getMessage());
    }
    // Directory modes last, so a read-only directory can still be filled while unpacking.
    for (var directory : directoryModes.entrySet()) {
      setMode(directory.getKey(), directory.getValue());
    }
  }

  private void applyEntry(
      TarEntry entry, TarReader reader, Set<Path> written, Map<Path, Integer> directoryModes)
      throws IOException {
    List<String> parts = components(entry.name());
    if (parts.isEmpty()) {
      return; // the root itself ("./")
    }
    String last = parts.getLast();
    Path parent = resolveDirectory(parts.subList(0, parts.size() - 1), entry.name(), true);
    if (last.equals(OPAQUE)) {
      clearLowerEntries(parent, written);
      return;
    }
    if (last.startsWith(WHITEOUT)) {
      var hidden = last.substring(WHITEOUT.length());
      if (hidden.isEmpty() || hidden.equals(".") || hidden.equals("..")) {
        throw unsafe(entry.name(), "is a whiteout of nothing");
      }
      deleteTree(parent.resolve(hidden));
      return;
    }
    Path target = parent.resolve(last);
    switch (entry.type()) {
      case DIRECTORY -> {
        if (!Files.isDirectory(target, LinkOption.NOFOLLOW_LINKS)) {
          deleteTree(target);
          Files.createDirectory(target);
        }
        directoryModes.put(target, entry.mode());
        setOwner(target, entry);
      }
      case FILE -> {
        deleteTree(target);
        try (var out =
            Files.newOutputStream(
                target, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
          reader.content().transferTo(out);
        }
        setOwner(target, entry);
        setMode(target, entry.mode());
        Files.setLastModifiedTime(
            target, FileTime.from(entry.modifiedSeconds(), java.util.concurrent.TimeUnit.SECONDS));
      }
      case SYMLINK -> {
        if (entry.linkName().isEmpty()) {
          throw unsafe(entry.name(), "is a symbolic link to nothing");
        }
        deleteTree(target);
        Files.createSymbolicLink(target, path(entry.linkName(), entry.name()));
        setOwner(target, entry);
      }
      case HARDLINK -> {
        Path source = resolveHardLinkTarget(entry);
        deleteTree(target);
        Files.createLink(target, source);
      }
      case CHARACTER_DEVICE, BLOCK_DEVICE ->
          throw unsafe(entry.name(), "is a device node, which a sandbox image may not carry");
      case FIFO -> {
        return; // Java cannot make a named pipe; a sandbox that needs one makes it at run time.
      }
    }
    // The entry and every directory above it belong to this layer now, so that an opaque marker
    // later in the same layer does not hide them.
    for (Path path = target; path != null && !path.equals(root); path = path.getParent()) {
      if (!written.add(path)) {
        break;
      }
    }
  }

  /** Splits an entry name into checked components: not absolute, no "..". */
  private static List<String> components(String name) {
    if (name.startsWith("/")) {
      throw unsafe(name, "is an absolute path");
    }
    var parts = new ArrayList<String>();
    for (var part : name.split("/")) {
      if (part.isEmpty() || part.equals(".")) {
        continue;
      }
      if (part.equals("..")) {
        throw unsafe(name, "has a '..' component");
      }
      if (part.indexOf('\0') >= 0) {
        throw unsafe(name, "has a NUL character");
      }
      parts.add(part);
    }
    return parts;
  }

  private Path resolveHardLinkTarget(TarEntry entry) throws IOException {
    var link = entry.linkName();
    if (link.isEmpty()) {
      throw unsafe(entry.name(), "is a hard link to nothing");
    }
    // Hard-link targets name an earlier entry of the archive; a leading '/' is tolerated as tar
    // does.
    var parts = components(link.replaceFirst("^/+", ""));
    if (parts.isEmpty()) {
      throw unsafe(entry.name(), "is a hard link to the root");
    }
    Path parent = resolveDirectory(parts.subList(0, parts.size() - 1), entry.name(), false);
    Path source = parent.resolve(parts.getLast());
    if (!Files.isRegularFile(source, LinkOption.NOFOLLOW_LINKS) && !Files.isSymbolicLink(source)) {
      throw unsafe(
          entry.name(), "is a hard link to '" + link + "', which is not a file in the root");
    }
    return source;
  }

  /**
   * Resolves directory components from the root, following symbolic links already in the root the
   * way the kernel would inside it, and refusing any that would leave the root.
   */
  private Path resolveDirectory(List<String> parts, String entryName, boolean create)
      throws IOException {
    Deque<String> stack = new ArrayDeque<>();
    walk(stack, parts, entryName, create, 0);
    Path path = root;
    for (var part : stack) {
      path = path.resolve(part);
    }
    return path;
  }

  private void walk(
      Deque<String> stack, List<String> parts, String entryName, boolean create, int hops)
      throws IOException {
    for (var part : parts) {
      if (part.isEmpty() || part.equals(".")) {
        continue;
      }
      if (part.equals("..")) {
        if (stack.isEmpty()) {
          throw unsafe(entryName, "would be written outside the root through a symbolic link");
        }
        stack.removeLast();
        continue;
      }
      Path current = root;
      for (var s : stack) {
        current = current.resolve(s);
      }
      Path next = current.resolve(part);
      if (Files.isSymbolicLink(next)) {
        if (hops >= MAX_LINK_HOPS) {
          throw unsafe(entryName, "goes through too many symbolic links");
        }
        var target = Files.readSymbolicLink(next).toString();
        if (target.startsWith("/")) {
          stack.clear();
        }
        walk(stack, List.of(target.split("/")), entryName, create, hops + 1);
      } else if (Files.isDirectory(next, LinkOption.NOFOLLOW_LINKS)) {
        stack.addLast(part);
      } else if (Files.exists(next, LinkOption.NOFOLLOW_LINKS)) {
        throw unsafe(entryName, "is below '" + part + "', which is not a directory");
      } else if (create) {
        Files.createDirectory(next);
        stack.addLast(part);
      } else {
        throw unsafe(entryName, "refers to '" + part + "', which does not exist in the root");
      }
    }
  }

  /** Deletes what lower layers left in a directory, keeping what this layer wrote. */
  private static void clearLowerEntries(Path directory, Set<Path> written) throws IOException {
    try (DirectoryStream<Path> children = Files.newDirectoryStream(directory)) {
      for (var child : children) {
        if (!written.contains(child)) {
          deleteTree(child);
        }
      }
    }
  }

  /** Deletes a file, a link (not what it points to) or a directory tree; absent is fine. */
  static void deleteTree(Path path) throws IOException {
    if (!Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    if (Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS)) {
      // Owner write and execute, so that a read-only directory can be emptied.
      try {
        Files.setAttribute(path, "unix:mode", 0700, LinkOption.NOFOLLOW_LINKS);
      } catch (IOException | UnsupportedOperationException e) {
        // best effort; the delete below reports the real failure
      }
      try (DirectoryStream<Path> children = Files.newDirectoryStream(path)) {
        for (var child : children) {
          deleteTree(child);
        }
      }
    }
    Files.delete(path);
  }

  private static void setMode(Path path, int mode) throws IOException {
    Files.setAttribute(path, "unix:mode", mode & 07777, LinkOption.NOFOLLOW_LINKS);
  }

  private static void setOwner(Path path, TarEntry entry) throws IOException {
    if (!ROOT_USER) {
      return;
    }
    Files.setAttribute(path, "unix:uid", (int) entry.uid(), LinkOption.NOFOLLOW_LINKS);
    Files.setAttribute(path, "unix:gid", (int) entry.gid(), LinkOption.NOFOLLOW_LINKS);
  }

  private static Path path(String text, String entryName) {
    try {
      return Path.of(text);
    } catch (InvalidPathException e) {
      throw unsafe(entryName, "has a link target that is not a path");
    }
  }

  private static KoraException unsafe(String name, String why) {
    return KoraException.invalidArgument("layer entry '%s' %s; the layer is refused", name, why);
  }
}
