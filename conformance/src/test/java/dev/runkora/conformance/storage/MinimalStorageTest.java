package dev.runkora.conformance.storage;

import dev.runkora.spi.core.KoraException;
import dev.runkora.spi.core.PluginConfig;
import dev.runkora.spi.storage.AccessMode;
import dev.runkora.spi.storage.StorageCapability;
import dev.runkora.spi.storage.StorageClass;
import dev.runkora.spi.storage.StorageContext;
import dev.runkora.spi.storage.StorageDescription;
import dev.runkora.spi.storage.StorageProvider;
import dev.runkora.spi.storage.Workspace;
import dev.runkora.spi.storage.WorkspaceRequest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Nested;

/**
 * Runs the storage suites against a minimal class that declares neither expansion nor usage nor
 * enforcement, so the suites' UNSUPPORTED and honesty checks run.
 */
class MinimalStorageTest {

  private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9._-]{0,62}");

  static final StorageProvider PROVIDER =
      new StorageProvider() {
        @Override
        public String name() {
          return "minimal";
        }

        @Override
        public Set<StorageCapability> capabilities() {
          return Set.of(StorageCapability.NODE_LOCAL);
        }

        @Override
        public String description() {
          return "Directories with their size in a side file.";
        }

        @Override
        public StorageClass create(PluginConfig config, StorageContext context) {
          return new Minimal(context.dataDirectory());
        }
      };

  /** Not concurrent-safe beyond what the suites need: provisions are synchronized. */
  private record Minimal(Path root) implements StorageClass {
    @Override
    public StorageDescription describe() {
      return StorageDescription.of(Set.of(AccessMode.READ_WRITE_ONCE), true, false);
    }

    @Override
    public synchronized Workspace provision(WorkspaceRequest request) {
      if (request.accessMode() != AccessMode.READ_WRITE_ONCE) {
        throw KoraException.unsupported("minimal", StorageCapability.SHARED);
      }
      var existing = find(request.name());
      if (existing.isPresent()) {
        if (existing.get().sizeBytes() != request.sizeBytes()) {
          throw KoraException.alreadyExists("workspace '%s' has another size", request.name());
        }
        return existing.get();
      }
      try {
        Files.createDirectories(root.resolve(request.name()));
        Files.writeString(root.resolve(request.name() + ".size"), "" + request.sizeBytes());
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return find(request.name()).orElseThrow();
    }

    @Override
    public Optional<Workspace> find(String name) {
      if (!NAME.matcher(name).matches()) {
        throw KoraException.invalidArgument("bad name '%s'", name);
      }
      var size = root.resolve(name + ".size");
      if (!Files.exists(size)) {
        return Optional.empty();
      }
      try {
        return Optional.of(
            Workspace.of(
                name,
                Long.parseLong(Files.readString(size)),
                AccessMode.READ_WRITE_ONCE,
                root.resolve(name),
                false,
                -1));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    @Override
    public List<Workspace> list() {
      try (var files = Files.list(root)) {
        return files
            .map(f -> f.getFileName().toString())
            .filter(f -> f.endsWith(".size"))
            .map(f -> find(f.substring(0, f.length() - 5)).orElseThrow())
            .toList();
      } catch (IOException e) {
        throw KoraException.unavailable("cannot list: %s", e.getMessage());
      }
    }

    @Override
    public Workspace expand(String name, long sizeBytes) {
      throw KoraException.unsupported("minimal", StorageCapability.EXPANSION);
    }

    @Override
    public synchronized void release(String name) {
      if (!NAME.matcher(name).matches()) {
        throw KoraException.invalidArgument("bad name '%s'", name);
      }
      try {
        var directory = root.resolve(name);
        if (Files.exists(directory)) {
          try (var walk = Files.walk(directory)) {
            for (var p : walk.sorted(Comparator.reverseOrder()).toList()) {
              Files.delete(p);
            }
          }
        }
        Files.deleteIfExists(root.resolve(name + ".size"));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    @Override
    public void close() {}
  }

  @Nested
  class Provisioning extends StorageProvisioningSuite {
    @Override
    protected StorageProvider provider() {
      return PROVIDER;
    }
  }

  @Nested
  class Expansion extends StorageExpansionSuite {
    @Override
    protected StorageProvider provider() {
      return PROVIDER;
    }
  }

  @Nested
  class Size extends StorageSizeSuite {
    @Override
    protected StorageProvider provider() {
      return PROVIDER;
    }
  }
}
