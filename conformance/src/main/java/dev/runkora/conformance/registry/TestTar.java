package dev.runkora.conformance.registry;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.zip.GZIPOutputStream;

/**
 * Writes small tar archives entry by entry, including the ones a safe unpacker must refuse (names
 * with {@code ..}, absolute names, device nodes), with GNU long names and pax records when asked.
 * Test code only: it writes what it is told.
 */
public final class TestTar {
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();

  /** Starts an empty archive. */
  public TestTar() {}

  /** Adds a regular file. */
  public TestTar file(String name, int mode, String content) {
    return entry(name, '0', mode, content.getBytes(StandardCharsets.UTF_8), "");
  }

  /** Adds a directory. */
  public TestTar directory(String name, int mode) {
    return entry(name, '5', mode, new byte[0], "");
  }

  /** Adds a symbolic link. */
  public TestTar symlink(String name, String target) {
    return entry(name, '2', 0777, new byte[0], target);
  }

  /** Adds a hard link to an earlier entry. */
  public TestTar hardlink(String name, String target) {
    return entry(name, '1', 0644, new byte[0], target);
  }

  /** Adds a character device node. */
  public TestTar characterDevice(String name) {
    return entry(name, '3', 0666, new byte[0], "");
  }

  /** Adds a block device node. */
  public TestTar blockDevice(String name) {
    return entry(name, '4', 0660, new byte[0], "");
  }

  /** Adds a file whose name is carried in a GNU long-name entry. */
  public TestTar fileWithGnuLongName(String name, String content) {
    var bytes = (name + "\0").getBytes(StandardCharsets.UTF_8);
    entry("././@LongLink", 'L', 0644, bytes, "");
    return entry(
        name.substring(0, Math.min(99, name.length())),
        '0',
        0644,
        content.getBytes(StandardCharsets.UTF_8),
        "");
  }

  /** Adds a file whose name is carried in a pax {@code path} record. */
  public TestTar fileWithPaxPath(String name, String content) {
    var record = " path=" + name + "\n";
    int length = record.length() + 1;
    while (String.valueOf(length).length() + record.length() != length) {
      length = String.valueOf(length).length() + record.length();
    }
    var pax = (length + record).getBytes(StandardCharsets.UTF_8);
    entry("PaxHeaders/x", 'x', 0644, pax, "");
    return entry("placeholder", '0', 0644, content.getBytes(StandardCharsets.UTF_8), "");
  }

  /** Returns the archive with its two closing zero blocks. */
  public byte[] bytes() {
    var copy = new ByteArrayOutputStream();
    copy.writeBytes(out.toByteArray());
    copy.writeBytes(new byte[1024]);
    return copy.toByteArray();
  }

  /** Returns the archive, gzip-compressed. */
  public byte[] gzipped() {
    var compressed = new ByteArrayOutputStream();
    try (var gzip = new GZIPOutputStream(compressed)) {
      gzip.write(bytes());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return compressed.toByteArray();
  }

  private TestTar entry(String name, char type, int mode, byte[] content, String link) {
    byte[] header = new byte[512];
    var nameBytes = name.getBytes(StandardCharsets.UTF_8);
    if (nameBytes.length > 100) {
      throw new IllegalArgumentException("use a long-name entry for " + name);
    }
    System.arraycopy(nameBytes, 0, header, 0, nameBytes.length);
    octal(header, 100, 8, mode);
    octal(header, 108, 8, 0);
    octal(header, 116, 8, 0);
    octal(header, 124, 12, content.length);
    octal(header, 136, 12, 1_700_000_000L);
    header[156] = (byte) type;
    var linkBytes = link.getBytes(StandardCharsets.UTF_8);
    System.arraycopy(linkBytes, 0, header, 157, Math.min(100, linkBytes.length));
    System.arraycopy("ustar\0".getBytes(StandardCharsets.US_ASCII), 0, header, 257, 6);
    header[263] = '0';
    header[264] = '0';
    for (int i = 148; i < 156; i++) {
      header[i] = ' ';
    }
    long sum = 0;
    for (byte b : header) {
      sum += b & 0xff;
    }
    var checksum = String.format("%06o", sum).getBytes(StandardCharsets.US_ASCII);
    System.arraycopy(checksum, 0, header, 148, 6);
    header[154] = 0;
    header[155] = ' ';
    out.writeBytes(header);
    out.writeBytes(content);
    out.writeBytes(new byte[(512 - content.length % 512) % 512]);
    return this;
  }

  private static void octal(byte[] header, int offset, int length, long value) {
    var text = String.format("%0" + (length - 1) + "o", value).getBytes(StandardCharsets.US_ASCII);
    System.arraycopy(text, 0, header, offset, length - 1);
    header[offset + length - 1] = 0;
  }
}
