package dev.runkora.plugin.registry.oci.content;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.runkora.spi.core.ErrorKind;
import dev.runkora.spi.core.KoraException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ManifestDocumentTest {
  private static final String A = "sha256:" + "a".repeat(64);
  private static final String B = "sha256:" + "b".repeat(64);
  private static final String C = "sha256:" + "c".repeat(64);

  private static ManifestDocument parse(String json, String contentType) {
    return ManifestDocument.parse(json.getBytes(StandardCharsets.UTF_8), contentType);
  }

  @Test
  public void aDockerSchema2ManifestIsRead() {
    var document =
        parse(
            """
            {"schemaVersion":2,
             "mediaType":"application/vnd.docker.distribution.manifest.v2+json",
             "config":{"mediaType":"application/vnd.docker.container.image.v1+json","digest":"%s","size":10},
             "layers":[{"mediaType":"application/vnd.docker.image.rootfs.diff.tar.gzip","digest":"%s","size":20}]}
            """
                .formatted(A, B),
            "");

    var manifest = (ManifestDocument.Manifest) document;
    assertThat(manifest.config().digest()).isEqualTo(A);
    assertThat(manifest.layers())
        .singleElement()
        .satisfies(l -> assertThat(l.size()).isEqualTo(20));
    assertThat(LayerUnpacker.isGzip(manifest.layers().getFirst().mediaType())).isTrue();
  }

  @Test
  public void aDockerManifestListPicksThePlatformAndNamesWhatItHasOtherwise() {
    var document =
        parse(
            """
            {"schemaVersion":2,
             "manifests":[
              {"mediaType":"application/vnd.docker.distribution.manifest.v2+json","digest":"%s","size":1,
               "platform":{"os":"linux","architecture":"arm64","variant":"v8"}},
              {"mediaType":"application/vnd.docker.distribution.manifest.v2+json","digest":"%s","size":1,
               "platform":{"os":"linux","architecture":"amd64"}}]}
            """
                .formatted(A, B),
            MediaTypes.DOCKER_LIST);

    var index = (ManifestDocument.Index) document;
    assertThat(index.select(new ManifestDocument.Platform("linux", "amd64", "")).digest())
        .isEqualTo(B);
    assertThat(index.select(new ManifestDocument.Platform("linux", "arm64", "v8")).digest())
        .isEqualTo(A);
    assertThatThrownBy(() -> index.select(new ManifestDocument.Platform("linux", "s390x", "")))
        .isInstanceOf(KoraException.class)
        .hasMessageContaining("linux/arm64/v8")
        .satisfies(e -> assertThat(((KoraException) e).kind()).isEqualTo(ErrorKind.NOT_FOUND));
  }

  @Test
  public void dockerSchema1IsUnsupported() {
    assertThatThrownBy(() -> parse("{\"schemaVersion\":1,\"fsLayers\":[]}", ""))
        .isInstanceOf(KoraException.class)
        .satisfies(e -> assertThat(((KoraException) e).kind()).isEqualTo(ErrorKind.UNSUPPORTED));
  }

  @Test
  public void contentThatIsNotAManifestIsInvalid() {
    for (var bad :
        new String[] {
          "not json",
          "[]",
          "{\"schemaVersion\":2}",
          "{\"config\":{\"digest\":\"sha256:short\",\"size\":1},\"layers\":[]}",
          "{\"config\":{\"digest\":\"%s\",\"size\":-1},\"layers\":[]}".formatted(C)
        }) {
      assertThatThrownBy(() -> parse(bad, ""))
          .as(bad)
          .isInstanceOf(KoraException.class)
          .satisfies(
              e -> assertThat(((KoraException) e).kind()).isEqualTo(ErrorKind.INVALID_ARGUMENT));
    }
  }
}
