package dev.runkora.plugin.registry.host;

import dev.runkora.spi.core.ErrorKind;
import dev.runkora.spi.core.KoraException;
import dev.runkora.spi.registry.ImageManifest;
import dev.runkora.spi.registry.ImageReference;
import dev.runkora.spi.registry.ImageRegistry;
import dev.runkora.spi.registry.RegistryCapability;
import dev.runkora.spi.registry.RootFilesystem;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;

/**
 * Serves the reference {@code host}: an empty root directory in the cache with the host's system
 * folders bound read-only on top. A folder that is a symbolic link on the host (merged {@code
 * /usr}: {@code /bin -> usr/bin}) is reproduced as the same link in the root instead of being
 * bound, so that it resolves through the bound {@code /usr} as on the host.
 */
final class HostImageRegistry implements ImageRegistry {
  static final String TEMPLATE = "host";
  private static final List<String> FOLDERS =
      List.of("usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32", "etc");
  private static final Map<String, String> ENV =
      Map.of("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");

  private final Path hostRoot;
  private final Path cacheDirectory;
  private final Path root;
  private final Map<Path, String> binds;

  HostImageRegistry(Path hostRoot, Path cacheDirectory) {
    this.hostRoot = hostRoot;
    this.cacheDirectory = cacheDirectory.toAbsolutePath();
    var layout = layout(hostRoot);
    this.binds = layout.binds();
    this.root = makeRoot(layout.links());
  }

  private record Layout(Map<Path, String> binds, Map<String, Path> links) {}

  private static Layout layout(Path hostRoot) {
    var binds = new LinkedHashMap<Path, String>();
    var links = new LinkedHashMap<String, Path>();
    for (var folder : FOLDERS) {
      var path = hostRoot.resolve(folder);
      try {
        if (Files.isSymbolicLink(path)) {
          links.put(folder, Files.readSymbolicLink(path));
        } else if (Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS)) {
          binds.put(path, "/" + folder);
        }
      } catch (IOException e) {
        throw new KoraException(
            ErrorKind.UNAVAILABLE, "host folder %s cannot be read: %s".formatted(path, e), e);
      }
    }
    if (!binds.containsValue("/usr")) {
      throw KoraException.unavailable("the host has no /usr under %s to bind", hostRoot);
    }
    return new Layout(binds, links);
  }

  /**
   * Makes the empty root: mount points for the binds and the host's links. A root whose content
   * matches is reused; otherwise a new one is built aside and renamed into place.
   */
  private Path makeRoot(Map<String, Path> links) {
    var name = "host-root-" + Integer.toHexString((binds.values() + "|" + links).hashCode());
    var target = cacheDirectory.resolve(name);
    if (Files.isDirectory(target)) {
      return target;
    }
    var work = cacheDirectory.resolve(".tmp-" + UUID.randomUUID());
    try {
      Files.createDirectories(work);
      for (var folder : binds.values()) {
        Files.createDirectory(work.resolve(folder.substring(1)));
      }
      for (var link : links.entrySet()) {
        Files.createSymbolicLink(work.resolve(link.getKey()), link.getValue());
      }
      for (var empty : List.of("proc", "dev", "tmp", "run", "home", "root", "var")) {
        Files.createDirectory(work.resolve(empty));
      }
      try {
        Files.move(work, target, StandardCopyOption.ATOMIC_MOVE);
      } catch (FileAlreadyExistsException | java.nio.file.DirectoryNotEmptyException e) {
        // another process made the same root first
      }
      return target;
    } catch (IOException e) {
      throw new KoraException(
          ErrorKind.UNAVAILABLE,
          "the host root cannot be made in %s: %s".formatted(cacheDirectory, e),
          e);
    } finally {
      deleteQuietly(work);
    }
  }

  @Override
  public boolean serves(String reference) {
    return TEMPLATE.equals(reference);
  }

  @Override
  public ImageReference resolve(String reference) {
    var parsed = ImageReference.parse(reference);
    if (!TEMPLATE.equals(reference)) {
      throw KoraException.invalidArgument(
          "plugin 'host' serves only the template 'host', not '%s'", reference);
    }
    return parsed;
  }

  @Override
  public ImageManifest manifest(ImageReference reference) {
    throw KoraException.unsupported("host", RegistryCapability.PULL);
  }

  @Override
  public RootFilesystem materialize(ImageReference reference, Consumer<String> progress) {
    requireTemplate(reference);
    return RootFilesystem.of(reference, TEMPLATE, root, binds, ENV, "/");
  }

  @Override
  public boolean isWarm(ImageReference reference) {
    requireTemplate(reference);
    return true;
  }

  @Override
  public void evict(ImageReference reference) {
    throw KoraException.unsupported("host", RegistryCapability.CACHE);
  }

  @Override
  public void close() {}

  private static void requireTemplate(ImageReference reference) {
    if (!TEMPLATE.equals(reference.original())) {
      throw KoraException.invalidArgument(
          "plugin 'host' serves only the template 'host', not '%s'", reference.original());
    }
  }

  private static void deleteQuietly(Path path) {
    try (var walk = Files.walk(path)) {
      walk.sorted(java.util.Comparator.reverseOrder())
          .forEach(
              p -> {
                try {
                  Files.deleteIfExists(p);
                } catch (IOException e) {
                  // left behind; harmless, it is outside the root
                }
              });
    } catch (IOException e) {
      // nothing to delete
    }
  }

  @Override
  public String toString() {
    return "host registry over " + hostRoot;
  }
}
