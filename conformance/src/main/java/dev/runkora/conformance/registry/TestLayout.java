package dev.runkora.conformance.registry;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * Writes an OCI image layout ({@code oci-layout}, {@code index.json}, {@code blobs/sha256}) of
 * small images made in the test, and can damage it afterwards (a corrupted or a missing blob). A
 * {@link TestRegistryServer} serves such a layout over the distribution API.
 */
public final class TestLayout {
  /** The layer media type of gzip layers. */
  public static final String GZIP_LAYER = "application/vnd.oci.image.layer.v1.tar+gzip";

  /** The layer media type of zstd layers. */
  public static final String ZSTD_LAYER = "application/vnd.oci.image.layer.v1.tar+zstd";

  private final Path directory;
  private final List<String> entries = new ArrayList<>();

  /**
   * A layer of an image being written.
   *
   * @param mediaType its media type
   * @param content its bytes as stored
   */
  public record Layer(String mediaType, byte[] content) {

    /** Returns a gzip layer of a tar archive. */
    public static Layer gzip(TestTar tar) {
      return new Layer(GZIP_LAYER, tar.gzipped());
    }
  }

  /**
   * What was written for one tagged image.
   *
   * @param manifestDigest the manifest's digest
   * @param layerDigests the layers' digests, bottom first
   */
  public record Written(String manifestDigest, List<String> layerDigests) {}

  private TestLayout(Path directory) {
    this.directory = directory;
  }

  /** Starts a layout in a directory, which is created. */
  public static TestLayout create(Path directory) throws IOException {
    Files.createDirectories(directory.resolve("blobs").resolve("sha256"));
    Files.writeString(directory.resolve("oci-layout"), "{\"imageLayoutVersion\":\"1.0.0\"}");
    var layout = new TestLayout(directory);
    layout.writeIndex();
    return layout;
  }

  /** Returns the layout's directory. */
  public Path directory() {
    return directory;
  }

  /** Adds an image of some layers under a tag (the {@code org.opencontainers.image.ref.name}). */
  public Written add(String tag, Layer... layers) throws IOException {
    var config =
        "{\"architecture\":\"amd64\",\"os\":\"linux\",\"config\":{\"Env\":[\"PATH=/bin\",\"KORA_TEST="
            + tag
            + "\"],\"WorkingDir\":\"/\"},\"rootfs\":{\"type\":\"layers\",\"diff_ids\":[]}}";
    var configDigest = writeBlob(config.getBytes(StandardCharsets.UTF_8));
    var layerJson = new ArrayList<String>();
    var layerDigests = new ArrayList<String>();
    for (var layer : layers) {
      var digest = writeBlob(layer.content());
      layerDigests.add(digest);
      layerJson.add(descriptor(layer.mediaType(), digest, layer.content().length));
    }
    var manifest =
        "{\"schemaVersion\":2,\"mediaType\":\"application/vnd.oci.image.manifest.v1+json\","
            + "\"config\":"
            + descriptor("application/vnd.oci.image.config.v1+json", configDigest, config.length())
            + ",\"layers\":["
            + String.join(",", layerJson)
            + "]}";
    var bytes = manifest.getBytes(StandardCharsets.UTF_8);
    var manifestDigest = writeBlob(bytes);
    entries.add(
        "{\"mediaType\":\"application/vnd.oci.image.manifest.v1+json\",\"digest\":\""
            + manifestDigest
            + "\",\"size\":"
            + bytes.length
            + ",\"annotations\":{\"org.opencontainers.image.ref.name\":\""
            + tag
            + "\"}}");
    writeIndex();
    return new Written(manifestDigest, List.copyOf(layerDigests));
  }

  /**
   * Adds an image index under a tag, listing one image for this node's platform and another for a
   * platform no test machine has ({@code linux/s390x}).
   */
  public Written addIndex(String tag, Written forThisNode, Written forOtherPlatform)
      throws IOException {
    var arch = System.getProperty("os.arch").equals("aarch64") ? "arm64" : "amd64";
    var index =
        "{\"schemaVersion\":2,\"mediaType\":\"application/vnd.oci.image.index.v1+json\","
            + "\"manifests\":["
            + platformEntry(forOtherPlatform, "s390x")
            + ","
            + platformEntry(forThisNode, arch)
            + "]}";
    var bytes = index.getBytes(StandardCharsets.UTF_8);
    var digest = writeBlob(bytes);
    entries.add(
        "{\"mediaType\":\"application/vnd.oci.image.index.v1+json\",\"digest\":\""
            + digest
            + "\",\"size\":"
            + bytes.length
            + ",\"annotations\":{\"org.opencontainers.image.ref.name\":\""
            + tag
            + "\"}}");
    writeIndex();
    return new Written(digest, forThisNode.layerDigests());
  }

  private String platformEntry(Written image, String arch) throws IOException {
    long size = Files.size(blob(image.manifestDigest()));
    return "{\"mediaType\":\"application/vnd.oci.image.manifest.v1+json\",\"digest\":\""
        + image.manifestDigest()
        + "\",\"size\":"
        + size
        + ",\"platform\":{\"os\":\"linux\",\"architecture\":\""
        + arch
        + "\"}}";
  }

  /**
   * Overwrites a blob with other bytes of the same length, so that its digest no longer matches.
   */
  public void corrupt(String digest) throws IOException {
    var path = blob(digest);
    var bytes = Files.readAllBytes(path);
    bytes[bytes.length / 2] ^= 0x5a;
    Files.write(path, bytes);
  }

  /** Deletes a blob. */
  public void remove(String digest) throws IOException {
    Files.delete(blob(digest));
  }

  /** Returns a blob's path. */
  public Path blob(String digest) {
    return directory.resolve("blobs").resolve("sha256").resolve(digest.substring(7));
  }

  private String writeBlob(byte[] content) throws IOException {
    var digest = sha256(content);
    Files.write(blob(digest), content);
    return digest;
  }

  private void writeIndex() throws IOException {
    Files.writeString(
        directory.resolve("index.json"),
        "{\"schemaVersion\":2,\"mediaType\":\"application/vnd.oci.image.index.v1+json\","
            + "\"manifests\":["
            + String.join(",", entries)
            + "]}");
  }

  private static String descriptor(String mediaType, String digest, long size) {
    return "{\"mediaType\":\""
        + mediaType
        + "\",\"digest\":\""
        + digest
        + "\",\"size\":"
        + size
        + "}";
  }

  /** Returns the {@code sha256:<hex>} digest of some bytes. */
  public static String sha256(byte[] content) {
    try {
      return "sha256:"
          + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(content));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
