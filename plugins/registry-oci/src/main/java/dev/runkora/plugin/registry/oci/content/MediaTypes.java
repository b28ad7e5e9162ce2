package dev.runkora.plugin.registry.oci.content;

import java.util.List;

/** The manifest media types kora reads, OCI and Docker v2 schema 2. */
public final class MediaTypes {
  /** An OCI image index. */
  public static final String OCI_INDEX = "application/vnd.oci.image.index.v1+json";

  /** An OCI image manifest. */
  public static final String OCI_MANIFEST = "application/vnd.oci.image.manifest.v1+json";

  /** A Docker manifest list (the Docker image index). */
  public static final String DOCKER_LIST =
      "application/vnd.docker.distribution.manifest.list.v2+json";

  /** A Docker v2 schema 2 manifest. */
  public static final String DOCKER_MANIFEST =
      "application/vnd.docker.distribution.manifest.v2+json";

  /** Every manifest type, for an {@code Accept} header. */
  public static final List<String> MANIFESTS =
      List.of(OCI_INDEX, OCI_MANIFEST, DOCKER_LIST, DOCKER_MANIFEST);

  private MediaTypes() {}

  /** Returns whether a media type is an index or manifest list. */
  public static boolean isIndex(String mediaType) {
    return OCI_INDEX.equals(mediaType) || DOCKER_LIST.equals(mediaType);
  }
}
