package dev.runkora.conformance.registry;

import java.io.IOException;
import java.nio.file.Path;

/**
 * The small images the registry suites use, written into one OCI layout by {@link #write}: a good
 * two-layer image (with a whiteout and an opaque directory), an index over it, and the bad ones.
 * Tags:
 *
 * <ul>
 *   <li>{@code good}: {@code /bin/hello} (executable), {@code /etc/kept}, {@code /etc/opaque/new};
 *       its lower layer's {@code /etc/removed} is whited out and {@code /etc/opaque/old} hidden by
 *       an opaque directory
 *   <li>{@code index}: an image index whose entry for this node's platform is {@code good}
 *   <li>{@code corrupt}: a layer whose bytes do not match its digest
 *   <li>{@code missing-blob}: a layer the source does not have
 *   <li>{@code dotdot}, {@code absolute}, {@code device}, {@code symlink-escape}: unsafe layers
 *   <li>{@code zstd}: a zstd-compressed layer
 * </ul>
 */
public final class TestImages {

  /** The tags of images that must be refused as unsafe or malformed. */
  public enum Unsafe {
    /** A layer entry named {@code ../escaped}. */
    DOTDOT("dotdot"),
    /** A layer entry named {@code /etc/escaped}. */
    ABSOLUTE("absolute"),
    /** A character device node. */
    DEVICE("device"),
    /** A symbolic link to {@code ../outside} and a file written through it. */
    SYMLINK_ESCAPE("symlink-escape");

    private final String tag;

    Unsafe(String tag) {
      this.tag = tag;
    }

    /** Returns the image's tag. */
    public String tag() {
      return tag;
    }
  }

  private TestImages() {}

  /** Writes the images into a new layout in a directory. */
  public static TestLayout write(Path directory) throws IOException {
    var layout = TestLayout.create(directory);
    var lower =
        new TestTar()
            .directory("bin/", 0755)
            .file("bin/hello", 0755, "#!/bin/sh\necho hello\n")
            .directory("etc/", 0755)
            .file("etc/kept", 0644, "kept\n")
            .file("etc/removed", 0644, "removed\n")
            .directory("etc/opaque/", 0755)
            .file("etc/opaque/old", 0644, "old\n");
    var upper =
        new TestTar()
            .file("etc/.wh.removed", 0, "")
            .directory("etc/opaque/", 0755)
            .file("etc/opaque/.wh..wh..opq", 0, "")
            .file("etc/opaque/new", 0644, "new\n");
    var good = layout.add("good", TestLayout.Layer.gzip(lower), TestLayout.Layer.gzip(upper));
    var other =
        layout.add(
            "other-platform",
            TestLayout.Layer.gzip(new TestTar().file("other", 0644, "for another platform\n")));
    layout.addIndex("index", good, other);

    var corrupt =
        layout.add(
            "corrupt",
            TestLayout.Layer.gzip(new TestTar().file("corrupt", 0644, "x".repeat(4096))));
    layout.corrupt(corrupt.layerDigests().getFirst());
    var missing =
        layout.add(
            "missing-blob",
            TestLayout.Layer.gzip(new TestTar().file("missing", 0644, "missing\n")));
    layout.remove(missing.layerDigests().getFirst());

    layout.add(
        "dotdot",
        TestLayout.Layer.gzip(
            new TestTar().file("fine", 0644, "fine\n").file("../escaped", 0644, "out\n")));
    layout.add(
        "absolute",
        TestLayout.Layer.gzip(
            new TestTar().file("fine", 0644, "fine\n").file("/etc/escaped", 0644, "out\n")));
    layout.add(
        "device",
        TestLayout.Layer.gzip(new TestTar().directory("dev/", 0755).characterDevice("dev/null")));
    layout.add(
        "symlink-escape",
        TestLayout.Layer.gzip(
            new TestTar().symlink("link", "../outside").file("link/escaped", 0644, "out\n")));
    layout.add(
        "zstd",
        new TestLayout.Layer(
            TestLayout.ZSTD_LAYER, new byte[] {0x28, (byte) 0xb5, 0x2f, (byte) 0xfd}));
    return layout;
  }
}
