package dev.runkora.plugin.registry.oci.content;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.runkora.conformance.registry.TestTar;
import dev.runkora.spi.core.ErrorKind;
import dev.runkora.spi.core.KoraException;
import java.io.ByteArrayInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LayerUnpackerTest {
  @TempDir Path work;
  Path root;

  @BeforeEach
  void makeRoot() throws Exception {
    root = Files.createDirectory(work.resolve("root"));
  }

  private void apply(TestTar tar) throws Exception {
    new LayerUnpacker(root).apply(new ByteArrayInputStream(tar.bytes()));
  }

  private void assertRefused(TestTar tar, String why) {
    assertThatThrownBy(() -> apply(tar))
        .isInstanceOf(KoraException.class)
        .satisfies(
            e -> assertThat(((KoraException) e).kind()).isEqualTo(ErrorKind.INVALID_ARGUMENT))
        .hasMessageContaining(why);
  }

  @Test
  public void filesKeepTheirModesAndHardLinksShareContent() throws Exception {
    apply(
        new TestTar()
            .file("bin/tool", 0750, "tool")
            .hardlink("bin/again", "bin/tool")
            .symlink("bin/alias", "tool"));

    assertThat(root.resolve("bin/tool")).hasContent("tool").isExecutable();
    assertThat(Files.getAttribute(root.resolve("bin/tool"), "unix:mode")).isEqualTo(0100750);
    assertThat(Files.isSameFile(root.resolve("bin/tool"), root.resolve("bin/again"))).isTrue();
    assertThat(Files.readSymbolicLink(root.resolve("bin/alias"))).isEqualTo(Path.of("tool"));
  }

  @Test
  public void aWhiteoutDeletesALowerLayersTreeAndAnOpaqueDirectoryHidesItsContent()
      throws Exception {
    apply(
        new TestTar()
            .file("a/gone/deep/file", 0644, "x")
            .file("b/old", 0644, "old")
            .file("c/kept", 0644, "kept"));
    apply(
        new TestTar()
            .file("a/.wh.gone", 0, "")
            .file("b/new", 0644, "new")
            .file("b/.wh..wh..opq", 0, ""));

    assertThat(root.resolve("a/gone")).doesNotExist();
    assertThat(root.resolve("a")).isEmptyDirectory();
    assertThat(root.resolve("b/old")).doesNotExist();
    assertThat(root.resolve("b/new")).hasContent("new");
    assertThat(root.resolve("c/kept")).hasContent("kept");
  }

  @Test
  public void anOpaqueMarkerKeepsWhatTheSameLayerWroteInSubdirectories() throws Exception {
    apply(new TestTar().file("d/lower/old", 0644, "old"));
    apply(new TestTar().file("d/upper/new", 0644, "new").file("d/.wh..wh..opq", 0, ""));

    assertThat(root.resolve("d/upper/new")).hasContent("new");
    assertThat(root.resolve("d/lower")).doesNotExist();
  }

  @Test
  public void aFileReplacesAnExistingSymlinkInsteadOfWritingThroughIt() throws Exception {
    var outside = Files.writeString(work.resolve("outside"), "untouched");
    apply(new TestTar().symlink("etc-passwd", outside.toString()));
    apply(new TestTar().file("etc-passwd", 0644, "replaced"));

    assertThat(Files.isSymbolicLink(root.resolve("etc-passwd"))).isFalse();
    assertThat(root.resolve("etc-passwd")).hasContent("replaced");
    assertThat(outside).hasContent("untouched");
  }

  @Test
  public void writesThroughARelativeSymlinkInsideTheRootLandInTheRoot() throws Exception {
    apply(new TestTar().directory("usr/bin/", 0755).symlink("bin", "usr/bin"));
    apply(new TestTar().file("bin/tool", 0755, "tool"));

    assertThat(root.resolve("usr/bin/tool")).hasContent("tool");
  }

  @Test
  public void anAbsoluteSymlinkIsFollowedFromTheRootNotFromTheHost() throws Exception {
    apply(new TestTar().directory("real/", 0755).symlink("link", "/real"));
    apply(new TestTar().file("link/file", 0644, "inside"));

    assertThat(root.resolve("real/file")).hasContent("inside");
  }

  @Test
  public void unsafeEntriesAreRefused() {
    assertRefused(new TestTar().file("../escaped", 0644, "x"), "'..'");
    assertRefused(new TestTar().file("a/../../escaped", 0644, "x"), "'..'");
    assertRefused(new TestTar().file("/etc/escaped", 0644, "x"), "absolute");
    assertRefused(new TestTar().characterDevice("dev/null"), "device");
    assertRefused(new TestTar().blockDevice("dev/sda"), "device");
    assertRefused(
        new TestTar().symlink("up", "..").file("up/escaped", 0644, "x"), "outside the root");
    assertRefused(new TestTar().hardlink("stolen", "../../etc/passwd"), "'..'");
    assertRefused(new TestTar().hardlink("stolen", "no/such/file"), "does not exist");
    assertThat(work.resolve("escaped")).doesNotExist();
  }

  @Test
  public void aHardLinkThroughASymlinkOutOfTheRootIsRefused() throws Exception {
    Files.writeString(work.resolve("secret"), "secret");
    apply(new TestTar().symlink("out", ".."));
    assertRefused(new TestTar().hardlink("stolen", "out/secret"), "outside the root");
    assertThat(root.resolve("stolen")).doesNotExist();
  }

  @Test
  public void zstdLayersAreUnsupportedAndGzipIsRecognised() {
    assertThatThrownBy(() -> LayerUnpacker.isGzip("application/vnd.oci.image.layer.v1.tar+zstd"))
        .isInstanceOf(KoraException.class)
        .satisfies(e -> assertThat(((KoraException) e).kind()).isEqualTo(ErrorKind.UNSUPPORTED))
        .hasMessageContaining("zstd");
    assertThat(LayerUnpacker.isGzip("application/vnd.docker.image.rootfs.diff.tar.gzip")).isTrue();
    assertThat(LayerUnpacker.isGzip("application/vnd.oci.image.layer.v1.tar")).isFalse();
  }
}
