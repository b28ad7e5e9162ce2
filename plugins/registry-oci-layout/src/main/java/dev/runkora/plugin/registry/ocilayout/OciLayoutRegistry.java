package dev.runkora.plugin.registry.ocilayout;

import dev.runkora.plugin.registry.oci.content.Digests;
import dev.runkora.plugin.registry.oci.content.ImageCache;
import dev.runkora.plugin.registry.oci.content.ManifestDocument;
import dev.runkora.spi.core.ErrorKind;
import dev.runkora.spi.core.KoraException;
import dev.runkora.spi.registry.Descriptor;
import dev.runkora.spi.registry.ImageManifest;
import dev.runkora.spi.registry.ImageReference;
import dev.runkora.spi.registry.ImageRegistry;
import dev.runkora.spi.registry.RootFilesystem;
import jakarta.json.Json;
import jakarta.json.JsonException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Images from an OCI image layout. Tags come from the {@code org.opencontainers.image.ref.name}
 * annotations of {@code index.json}: a reference {@code name:tag} matches an annotation equal to
 * {@code name:tag} or, failing that, to {@code tag} alone (what umoci and skopeo write). A
 * reference pinned to a digest reads that manifest blob directly.
 */
final class OciLayoutRegistry implements ImageRegistry {
  private static final String REF_NAME = "org.opencontainers.image.ref.name";
  private static final int MAX_INDEX_DEPTH = 4;

  private final Path layout;
  private final ImageCache cache;
  private final ManifestDocument.Platform platform;
  private volatile Map<String, Descriptor> tags;

  OciLayoutRegistry(Path layout, ImageCache cache, ManifestDocument.Platform platform) {
    this.layout = layout;
    this.cache = cache;
    this.platform = platform;
    this.tags = readTags();
  }

  @Override
  public boolean serves(String reference) {
    try {
      var parsed = ImageReference.parse(reference);
      return parsed.pinnedDigest().isPresent() || find(parsed, tags) != null;
    } catch (KoraException e) {
      return false;
    }
  }

  @Override
  public ImageReference resolve(String reference) {
    return ImageReference.parse(reference);
  }

  @Override
  public ImageManifest manifest(ImageReference reference) {
    Descriptor descriptor;
    if (reference.pinnedDigest().isPresent()) {
      var digest = Digests.requireSha256(reference.pinnedDigest().get());
      descriptor = Descriptor.of("", digest, -1);
    } else {
      tags = readTags(); // the layout may have gained tags since the last read
      descriptor = find(reference, tags);
      if (descriptor == null) {
        throw KoraException.notFound(
            "the OCI layout at %s has no image tagged '%s'; it has %s",
            layout, reference.tag(), tags.keySet());
      }
    }
    for (int depth = 0; ; depth++) {
      byte[] content = readManifestBlob(descriptor);
      var document = ManifestDocument.parse(content, descriptor.mediaType());
      if (document instanceof ManifestDocument.Manifest manifest) {
        return ImageManifest.of(
            reference, descriptor.digest(), manifest.config(), manifest.layers());
      }
      if (depth >= MAX_INDEX_DEPTH) {
        throw KoraException.invalidArgument(
            "image %s nests indexes deeper than %d", reference.original(), MAX_INDEX_DEPTH);
      }
      descriptor = ((ManifestDocument.Index) document).select(platform);
    }
  }

  @Override
  public RootFilesystem materialize(ImageReference reference, Consumer<String> progress) {
    var cached = cache.cachedRoot(reference);
    if (cached.isPresent()) {
      return cached.get();
    }
    var manifest = manifest(reference);
    return cache.materialize(reference, manifest, this::openBlob, progress);
  }

  @Override
  public boolean isWarm(ImageReference reference) {
    return cache.cachedDigest(reference).isPresent();
  }

  @Override
  public void evict(ImageReference reference) {
    cache.evict(reference);
  }

  @Override
  public void close() {}

  private byte[] readManifestBlob(Descriptor descriptor) {
    try (var in = openBlob(descriptor)) {
      byte[] content = in.readNBytes(4 * 1024 * 1024);
      var digest = Digests.of(content);
      if (!digest.equals(descriptor.digest())) {
        throw KoraException.invalidArgument(
            "manifest %s in the OCI layout at %s does not match its digest: its content hashes to %s",
            descriptor.digest(), layout, digest);
      }
      return content;
    } catch (IOException e) {
      throw new KoraException(
          ErrorKind.UNAVAILABLE, "the OCI layout at %s cannot be read: %s".formatted(layout, e), e);
    }
  }

  private InputStream openBlob(Descriptor descriptor) throws IOException {
    var path = layout.resolve("blobs").resolve("sha256").resolve(Digests.hex(descriptor.digest()));
    try {
      return Files.newInputStream(path);
    } catch (NoSuchFileException e) {
      throw KoraException.notFound(
          "the OCI layout at %s lacks blob %s", layout, descriptor.digest());
    }
  }

  private static Descriptor find(ImageReference reference, Map<String, Descriptor> tags) {
    var byName = tags.get(reference.repository() + ":" + reference.tag());
    if (byName == null) {
      var original = reference.original();
      byName = tags.get(original);
    }
    return byName != null ? byName : tags.get(reference.tag());
  }

  private Map<String, Descriptor> readTags() {
    try (var reader =
        Json.createReader(
            new ByteArrayInputStream(Files.readAllBytes(layout.resolve("index.json"))))) {
      var map = new LinkedHashMap<String, Descriptor>();
      for (var value : reader.readObject().getJsonArray("manifests")) {
        var entry = value.asJsonObject();
        var annotations = entry.getJsonObject("annotations");
        if (annotations == null || !annotations.containsKey(REF_NAME)) {
          continue;
        }
        map.put(
            annotations.getString(REF_NAME),
            Descriptor.of(
                entry.getString("mediaType", ""),
                Digests.requireSha256(entry.getString("digest")),
                entry.getJsonNumber("size").longValueExact()));
      }
      return Map.copyOf(map);
    } catch (IOException e) {
      throw new KoraException(
          ErrorKind.UNAVAILABLE,
          "the index.json of the OCI layout at %s cannot be read: %s".formatted(layout, e),
          e);
    } catch (JsonException | ClassCastException | NullPointerException | ArithmeticException e) {
      throw KoraException.invalidArgument(
          "the index.json of the OCI layout at %s is malformed: %s", layout, e.getMessage());
    }
  }
}
