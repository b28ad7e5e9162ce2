package dev.runkora.plugin.registry.oci.content;

import dev.runkora.spi.core.ErrorKind;
import dev.runkora.spi.core.KoraException;
import dev.runkora.spi.registry.Descriptor;
import jakarta.json.Json;
import jakarta.json.JsonException;
import jakarta.json.JsonObject;
import java.io.ByteArrayInputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** A parsed manifest document: either an image index or a platform manifest. */
public sealed interface ManifestDocument {

  /**
   * An image index or Docker manifest list.
   *
   * @param manifests the platform manifests it lists
   */
  record Index(List<PlatformManifest> manifests) implements ManifestDocument {

    /**
     * Picks the manifest of a platform.
     *
     * @throws KoraException {@code NOT_FOUND} naming the platforms the index has
     */
    public Descriptor select(Platform platform) {
      for (var manifest : manifests) {
        if (platform.matches(manifest.platform())) {
          return manifest.descriptor();
        }
      }
      throw KoraException.notFound(
          "the image index has no manifest for %s; it has %s",
          platform, manifests.stream().map(PlatformManifest::platform).toList());
    }
  }

  /**
   * One entry of an index.
   *
   * @param descriptor the manifest
   * @param platform its platform
   */
  record PlatformManifest(Descriptor descriptor, Platform platform) {}

  /**
   * A platform manifest.
   *
   * @param config the configuration blob
   * @param layers the layers, bottom first
   */
  record Manifest(Descriptor config, List<Descriptor> layers) implements ManifestDocument {}

  /**
   * Parses a manifest document.
   *
   * @param content the bytes
   * @param contentType the media type the source gave, or empty
   * @throws KoraException {@code INVALID_ARGUMENT} for content that is not a manifest, {@code
   *     UNSUPPORTED} for Docker schema 1
   */
  static ManifestDocument parse(byte[] content, String contentType) {
    JsonObject json;
    try (var reader = Json.createReader(new ByteArrayInputStream(content))) {
      json = reader.readObject();
    } catch (JsonException | ClassCastException e) {
      throw KoraException.invalidArgument("the manifest is not a JSON object: %s", e.getMessage());
    }
    String mediaType = json.getString("mediaType", contentType == null ? "" : contentType);
    if (mediaType.startsWith("application/vnd.docker.distribution.manifest.v1")
        || json.getInt("schemaVersion", 2) == 1) {
      throw new KoraException(
          ErrorKind.UNSUPPORTED,
          "the manifest is Docker schema 1, which kora does not read; push the image again");
    }
    try {
      if (MediaTypes.isIndex(mediaType)
          || (json.containsKey("manifests") && !json.containsKey("layers"))) {
        var list = new ArrayList<PlatformManifest>();
        for (var value : json.getJsonArray("manifests")) {
          var entry = value.asJsonObject();
          var platform =
              entry.containsKey("platform")
                  ? Platform.of(entry.getJsonObject("platform"))
                  : Platform.UNKNOWN;
          list.add(new PlatformManifest(descriptor(entry), platform));
        }
        return new Index(List.copyOf(list));
      }
      if (!json.containsKey("config") || !json.containsKey("layers")) {
        throw KoraException.invalidArgument(
            "the manifest of media type '%s' has no config or no layers", mediaType);
      }
      var layers = new ArrayList<Descriptor>();
      for (var value : json.getJsonArray("layers")) {
        layers.add(descriptor(value.asJsonObject()));
      }
      return new Manifest(descriptor(json.getJsonObject("config")), List.copyOf(layers));
    } catch (ClassCastException | NullPointerException | JsonException e) {
      throw KoraException.invalidArgument("the manifest is malformed: %s", e.getMessage());
    }
  }

  private static Descriptor descriptor(JsonObject json) {
    var digest = Digests.requireSha256(json.getString("digest"));
    long size = json.getJsonNumber("size").longValueExact();
    if (size < 0) {
      throw KoraException.invalidArgument("descriptor %s has a negative size", digest);
    }
    return Descriptor.of(json.getString("mediaType", ""), digest, size);
  }

  /**
   * The platform an image is for.
   *
   * @param os such as {@code linux}
   * @param architecture such as {@code amd64}
   * @param variant such as {@code v8}, or empty
   */
  record Platform(String os, String architecture, String variant) {
    static final Platform UNKNOWN = new Platform("", "", "");

    private static final Map<String, String> JAVA_ARCHITECTURES =
        Map.of("amd64", "amd64", "x86_64", "amd64", "aarch64", "arm64", "arm", "arm");

    /** Returns this node's platform. */
    public static Platform current() {
      var arch = System.getProperty("os.arch", "amd64").toLowerCase(Locale.ROOT);
      return new Platform("linux", JAVA_ARCHITECTURES.getOrDefault(arch, arch), "");
    }

    static Platform of(JsonObject json) {
      return new Platform(
          json.getString("os", ""),
          json.getString("architecture", ""),
          json.getString("variant", ""));
    }

    boolean matches(Platform other) {
      return os.equals(other.os)
          && architecture.equals(other.architecture)
          && (variant.isEmpty() || variant.equals(other.variant));
    }

    @Override
    public String toString() {
      return os + "/" + architecture + (variant.isEmpty() ? "" : "/" + variant);
    }
  }
}
