package dev.runkora.plugin.registry.oci;

import dev.runkora.plugin.registry.oci.content.ImageCache;
import dev.runkora.plugin.registry.oci.content.ManifestDocument;
import dev.runkora.spi.core.ErrorKind;
import dev.runkora.spi.core.KoraException;
import dev.runkora.spi.registry.Descriptor;
import dev.runkora.spi.registry.ImageManifest;
import dev.runkora.spi.registry.ImageReference;
import dev.runkora.spi.registry.ImageRegistry;
import dev.runkora.spi.registry.RegistrySettings;
import dev.runkora.spi.registry.RootFilesystem;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The {@code oci} registry: images from OCI distribution v2 registries, read through this node's
 * mirrors, cached by digest and unpacked into root directories by {@link ImageCache}.
 *
 * <p>Once a tag has been materialised it stays bound to the manifest digest it had then: a warm
 * image is served without asking the registry, so that claims never wait on the network. A moved
 * tag is picked up after {@link #evict}.
 */
final class OciImageRegistry implements ImageRegistry {
  private static final int MAX_INDEX_DEPTH = 4;

  private final RegistrySettings settings;
  private final DistributionClient client;
  private final ImageCache cache;
  private final ManifestDocument.Platform platform;
  private final System.Logger logger;

  OciImageRegistry(
      RegistrySettings settings,
      ImageCache cache,
      ManifestDocument.Platform platform,
      System.Logger logger) {
    this.settings = settings;
    this.client = new DistributionClient(settings.plainHttpHosts());
    this.cache = cache;
    this.platform = platform;
    this.logger = logger;
  }

  @Override
  public boolean serves(String reference) {
    if ("host".equals(reference)) {
      return false; // the host template belongs to the host plugin
    }
    try {
      ImageReference.parse(reference);
      return true;
    } catch (KoraException e) {
      return false;
    }
  }

  @Override
  public ImageReference resolve(String reference) {
    var parsed = ImageReference.parse(reference);
    var host = parsed.registry();
    int colon = host.lastIndexOf(':');
    if (colon > host.lastIndexOf(']') && colon > 0) {
      int port = Integer.parseInt(host.substring(colon + 1));
      if (port != 443
          && !settings.registryPorts().contains(port)
          && !DistributionClient.isLoopback(host)) {
        throw KoraException.invalidArgument(
            "image reference '%s' names registry port %d, which is not among this node's registry"
                + " ports %s; add it to registryPorts",
            reference, port, new java.util.TreeSet<>(settings.registryPorts()));
      }
    }
    return parsed;
  }

  @Override
  public ImageManifest manifest(ImageReference reference) {
    return fromSources(reference, host -> fetchManifest(host, reference));
  }

  private ImageManifest fetchManifest(String host, ImageReference reference) {
    var fetched = client.manifest(host, reference.repository(), reference.manifestReference());
    var document = ManifestDocument.parse(fetched.content(), fetched.mediaType());
    String digest = fetched.digest();
    for (int depth = 0; document instanceof ManifestDocument.Index index; depth++) {
      if (depth >= MAX_INDEX_DEPTH) {
        throw KoraException.invalidArgument(
            "image %s nests indexes deeper than %d", reference.canonical(), MAX_INDEX_DEPTH);
      }
      Descriptor chosen = index.select(platform);
      fetched = client.manifest(host, reference.repository(), chosen.digest());
      if (!fetched.digest().equals(chosen.digest())) {
        throw KoraException.invalidArgument(
            "manifest %s of image %s does not match its digest",
            chosen.digest(), reference.canonical());
      }
      document = ManifestDocument.parse(fetched.content(), fetched.mediaType());
      digest = fetched.digest();
    }
    var manifest = (ManifestDocument.Manifest) document;
    return ImageManifest.of(reference, digest, manifest.config(), manifest.layers());
  }

  @Override
  public RootFilesystem materialize(ImageReference reference, Consumer<String> progress) {
    var cached = cache.cachedRoot(reference);
    if (cached.isPresent()) {
      return cached.get();
    }
    var manifest = manifest(reference);
    progress.accept(
        "image %s is %s, %d layer(s)"
            .formatted(reference.canonical(), manifest.digest(), manifest.layers().size()));
    return cache.materialize(
        reference, manifest, descriptor -> openBlob(reference, descriptor), progress);
  }

  private InputStream openBlob(ImageReference reference, Descriptor descriptor) {
    return fromSources(
        reference, host -> client.blob(host, reference.repository(), descriptor.digest()));
  }

  /** Reads from the registry's mirror first, when it has one, then from the registry itself. */
  private <T> T fromSources(ImageReference reference, Function<String, T> read) {
    var hosts = new ArrayList<String>();
    var mirror = settings.mirrors().get(reference.registry());
    if (mirror != null && !mirror.isBlank()) {
      hosts.add(mirror);
    }
    hosts.add(reference.registry());
    KoraException last = null;
    for (var host : hosts) {
      try {
        return read.apply(host);
      } catch (KoraException e) {
        boolean retry = e.kind() == ErrorKind.UNAVAILABLE || e.kind() == ErrorKind.NOT_FOUND;
        if (!retry || host.equals(reference.registry())) {
          throw e;
        }
        logger.log(
            System.Logger.Level.INFO,
            "mirror {0} of {1} failed ({2}); reading from {1}",
            host,
            reference.registry(),
            e.getMessage());
        last = e;
      }
    }
    throw last;
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
  public void close() {
    client.close();
  }
}
