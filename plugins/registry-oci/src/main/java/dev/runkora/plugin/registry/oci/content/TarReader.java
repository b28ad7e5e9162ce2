package dev.runkora.plugin.registry.oci.content;

import dev.runkora.spi.core.KoraException;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Reads a tar stream entry by entry: POSIX ustar, pax extended headers ({@code path}, {@code
 * linkpath}, {@code size}, {@code uid}, {@code gid}, {@code mtime}) and GNU long names ({@code L},
 * {@code K}). Numbers may be octal or GNU base-256. Every header's checksum is checked.
 *
 * <p>It only parses: whether an entry is safe to write is {@link LayerUnpacker}'s decision. A
 * malformed archive fails with {@code INVALID_ARGUMENT}.
 */
public final class TarReader {
  private static final int BLOCK = 512;

  /** Pax and GNU long-name records larger than this are refused rather than buffered. */
  private static final int MAX_EXTENDED_HEADER = 1 << 20;

  private final InputStream in;
  private final byte[] header = new byte[BLOCK];
  private long remaining;
  private long padding;
  private Map<String, String> globalPax = Map.of();
  private boolean finished;

  /** Reads from a stream of uncompressed tar bytes. */
  public TarReader(InputStream in) {
    this.in = in;
  }

  /**
   * Skips what is left of the current entry and reads the next one.
   *
   * @return the entry, or empty at the end of the archive
   */
  public Optional<TarEntry> next() throws IOException {
    skipRest();
    if (finished) {
      return Optional.empty();
    }
    String longName = null;
    String longLink = null;
    Map<String, String> pax = new HashMap<>(globalPax);
    while (true) {
      if (!readBlock(header)) {
        finished = true;
        return Optional.empty();
      }
      if (isZero(header)) {
        finished = true;
        return Optional.empty();
      }
      verifyChecksum();
      char flag = (char) (header[156] & 0xff);
      long size = number(124, 12, "size");
      if (size < 0) {
        throw malformed("a negative size");
      }
      switch (flag) {
        case 'L' -> longName = cString(readExtended(size));
        case 'K' -> longLink = cString(readExtended(size));
        case 'x' -> pax.putAll(parsePax(readExtended(size)));
        case 'g' -> {
          var global = new HashMap<>(globalPax);
          global.putAll(parsePax(readExtended(size)));
          globalPax = Map.copyOf(global);
          pax.putAll(global);
        }
        default -> {
          return Optional.of(entry(flag, size, longName, longLink, pax));
        }
      }
    }
  }

  /** Returns a stream over the current entry's content; closing it does not close the archive. */
  public InputStream content() {
    return new InputStream() {
      @Override
      public int read() throws IOException {
        byte[] one = new byte[1];
        int n = read(one, 0, 1);
        return n < 0 ? -1 : one[0] & 0xff;
      }

      @Override
      public int read(byte[] buffer, int offset, int length) throws IOException {
        if (remaining <= 0) {
          return -1;
        }
        int n = in.read(buffer, offset, (int) Math.min(length, remaining));
        if (n < 0) {
          throw new EOFException("tar stream ends inside an entry");
        }
        remaining -= n;
        return n;
      }
    };
  }

  private TarEntry entry(
      char flag, long headerSize, String longName, String longLink, Map<String, String> pax)
      throws IOException {
    String name = longName != null ? longName : ustarName();
    String link = longLink != null ? longLink : field(157, 100);
    long size = headerSize;
    long uid = number(108, 8, "uid");
    long gid = number(116, 8, "gid");
    long mtime = number(136, 12, "mtime");
    if (pax.containsKey("path")) {
      name = pax.get("path");
    }
    if (pax.containsKey("linkpath")) {
      link = pax.get("linkpath");
    }
    size = paxNumber(pax, "size", size);
    uid = paxNumber(pax, "uid", uid);
    gid = paxNumber(pax, "gid", gid);
    if (pax.containsKey("mtime")) {
      var text = pax.get("mtime");
      int dot = text.indexOf('.');
      mtime = paxNumber(Map.of("mtime", dot < 0 ? text : text.substring(0, dot)), "mtime", mtime);
    }
    var type =
        switch (flag) {
          case '0', '\0', '7' -> TarEntry.Type.FILE;
          case '1' -> TarEntry.Type.HARDLINK;
          case '2' -> TarEntry.Type.SYMLINK;
          case '3' -> TarEntry.Type.CHARACTER_DEVICE;
          case '4' -> TarEntry.Type.BLOCK_DEVICE;
          case '5' -> TarEntry.Type.DIRECTORY;
          case '6' -> TarEntry.Type.FIFO;
          default ->
              throw KoraException.invalidArgument(
                  "layer has tar entry '%s' of type '%s', which kora does not unpack", name, flag);
        };
    if (type == TarEntry.Type.FILE && name.endsWith("/") && flag == '\0') {
      type = TarEntry.Type.DIRECTORY; // old tar: a directory is a file whose name ends in '/'
    }
    // Only regular files carry content; for the others a size is ignored, as tar itself does.
    remaining = type == TarEntry.Type.FILE ? size : 0;
    long dataBlocks = type == TarEntry.Type.FILE ? size : 0;
    padding = (BLOCK - dataBlocks % BLOCK) % BLOCK;
    if (type != TarEntry.Type.FILE && size > 0) {
      // Content of a non-file entry is skipped with its padding.
      remaining = 0;
      skipFully(size + (BLOCK - size % BLOCK) % BLOCK);
      padding = 0;
    }
    int mode = (int) (number(100, 8, "mode") & 07777);
    return new TarEntry(name, type, mode, uid, gid, size, mtime, link);
  }

  private String ustarName() {
    String name = field(0, 100);
    boolean ustar =
        header[257] == 'u'
            && header[258] == 's'
            && header[259] == 't'
            && header[260] == 'a'
            && header[261] == 'r';
    if (ustar) {
      String prefix = field(345, 155);
      if (!prefix.isEmpty()) {
        return prefix + "/" + name;
      }
    }
    return name;
  }

  private byte[] readExtended(long size) throws IOException {
    if (size > MAX_EXTENDED_HEADER) {
      throw malformed("an extended header of " + size + " bytes");
    }
    byte[] data = in.readNBytes((int) size);
    if (data.length != size) {
      throw new EOFException("tar stream ends inside an extended header");
    }
    skipFully((BLOCK - size % BLOCK) % BLOCK);
    return data;
  }

  /** Parses pax records: {@code "<length> <key>=<value>\n"}, the length counting the whole. */
  private static Map<String, String> parsePax(byte[] data) {
    var map = new HashMap<String, String>();
    int at = 0;
    while (at < data.length) {
      int space = at;
      while (space < data.length && data[space] != ' ') {
        space++;
      }
      int length;
      try {
        length = Integer.parseInt(new String(data, at, space - at, StandardCharsets.US_ASCII));
      } catch (NumberFormatException e) {
        throw malformed("a pax record without a length");
      }
      if (length <= space - at + 1 || at + length > data.length || data[at + length - 1] != '\n') {
        throw malformed("a pax record of a wrong length");
      }
      var record =
          new String(data, space + 1, at + length - 1 - (space + 1), StandardCharsets.UTF_8);
      int equals = record.indexOf('=');
      if (equals <= 0) {
        throw malformed("a pax record without a key");
      }
      map.put(record.substring(0, equals), record.substring(equals + 1));
      at += length;
    }
    return map;
  }

  private static long paxNumber(Map<String, String> pax, String key, long fallback) {
    var value = pax.get(key);
    if (value == null) {
      return fallback;
    }
    try {
      long parsed = Long.parseLong(value.trim());
      if (parsed < 0) {
        throw malformed("a negative pax " + key);
      }
      return parsed;
    } catch (NumberFormatException e) {
      throw malformed("a pax " + key + " that is not a number");
    }
  }

  private void verifyChecksum() {
    long stored = number(148, 8, "checksum");
    long unsigned = 0;
    long signed = 0;
    for (int i = 0; i < BLOCK; i++) {
      int b = (i >= 148 && i < 156) ? ' ' : header[i];
      unsigned += b & 0xff;
      signed += (i >= 148 && i < 156) ? ' ' : header[i];
    }
    if (stored != unsigned && stored != signed) {
      throw malformed("a header whose checksum does not match");
    }
  }

  /** Reads an octal field, or a GNU base-256 one (first byte's high bit set). */
  private long number(int offset, int length, String what) {
    if ((header[offset] & 0x80) != 0) {
      if ((header[offset] & 0x40) != 0) {
        throw malformed("a negative base-256 " + what);
      }
      long value = header[offset] & 0x3f;
      for (int i = 1; i < length; i++) {
        if ((value >>> 55) != 0) {
          throw malformed("a base-256 " + what + " too large");
        }
        value = (value << 8) | (header[offset + i] & 0xff);
      }
      return value;
    }
    long value = 0;
    int i = offset;
    int end = offset + length;
    while (i < end && (header[i] == ' ' || header[i] == 0)) {
      i++;
    }
    for (; i < end; i++) {
      byte b = header[i];
      if (b == 0 || b == ' ') {
        break;
      }
      if (b < '0' || b > '7') {
        throw malformed("a " + what + " field that is not octal");
      }
      if ((value >>> 60) != 0) {
        throw malformed("a " + what + " too large");
      }
      value = (value << 3) | (b - '0');
    }
    return value;
  }

  private String field(int offset, int length) {
    int end = offset;
    while (end < offset + length && header[end] != 0) {
      end++;
    }
    return new String(header, offset, end - offset, StandardCharsets.UTF_8);
  }

  private static String cString(byte[] data) {
    int end = 0;
    while (end < data.length && data[end] != 0) {
      end++;
    }
    return new String(data, 0, end, StandardCharsets.UTF_8);
  }

  private void skipRest() throws IOException {
    if (remaining > 0 || padding > 0) {
      skipFully(remaining + padding);
      remaining = 0;
      padding = 0;
    }
  }

  private boolean readBlock(byte[] block) throws IOException {
    int n = in.readNBytes(block, 0, BLOCK);
    if (n == 0) {
      return false;
    }
    if (n != BLOCK) {
      throw new EOFException("tar stream ends inside a header");
    }
    return true;
  }

  private void skipFully(long count) throws IOException {
    in.skipNBytes(count);
  }

  private static boolean isZero(byte[] block) {
    for (byte b : block) {
      if (b != 0) {
        return false;
      }
    }
    return true;
  }

  private static KoraException malformed(String what) {
    return KoraException.invalidArgument("layer is not a valid tar archive: it has %s", what);
  }
}
