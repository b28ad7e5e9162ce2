package dev.runkora.plugin.registry.oci.content;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.runkora.conformance.registry.TestTar;
import dev.runkora.spi.core.ErrorKind;
import dev.runkora.spi.core.KoraException;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class TarReaderTest {

  private static List<TarEntry> read(byte[] tar, List<String> contents) throws Exception {
    var reader = new TarReader(new ByteArrayInputStream(tar));
    var entries = new ArrayList<TarEntry>();
    for (var entry = reader.next(); entry.isPresent(); entry = reader.next()) {
      entries.add(entry.get());
      contents.add(new String(reader.content().readAllBytes(), StandardCharsets.UTF_8));
    }
    return entries;
  }

  @Test
  public void readsUstarEntriesWithTheirTypesModesAndContent() throws Exception {
    var tar =
        new TestTar()
            .directory("bin/", 0755)
            .file("bin/tool", 0755, "#!/bin/sh\n")
            .symlink("bin/alias", "tool")
            .hardlink("bin/again", "bin/tool")
            .bytes();
    var contents = new ArrayList<String>();

    var entries = read(tar, contents);

    assertThat(entries)
        .extracting(TarEntry::name, TarEntry::type, TarEntry::mode)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("bin/", TarEntry.Type.DIRECTORY, 0755),
            org.assertj.core.groups.Tuple.tuple("bin/tool", TarEntry.Type.FILE, 0755),
            org.assertj.core.groups.Tuple.tuple("bin/alias", TarEntry.Type.SYMLINK, 0777),
            org.assertj.core.groups.Tuple.tuple("bin/again", TarEntry.Type.HARDLINK, 0644));
    assertThat(contents.get(1)).isEqualTo("#!/bin/sh\n");
    assertThat(entries.get(2).linkName()).isEqualTo("tool");
  }

  @Test
  public void skippingAnEntrysContentStillFindsTheNextEntry() throws Exception {
    var tar = new TestTar().file("a", 0644, "x".repeat(1500)).file("b", 0644, "b").bytes();
    var reader = new TarReader(new ByteArrayInputStream(tar));
    assertThat(reader.next().orElseThrow().name()).isEqualTo("a");
    var second = reader.next().orElseThrow();
    assertThat(second.name()).isEqualTo("b");
    assertThat(new String(reader.content().readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("b");
    assertThat(reader.next()).isEmpty();
  }

  @Test
  public void gnuLongNamesAndPaxPathsReplaceTheHeaderName() throws Exception {
    var longName = "deep/" + "d".repeat(150) + "/file";
    var tar =
        new TestTar()
            .fileWithGnuLongName(longName, "long")
            .fileWithPaxPath("pax/" + "p".repeat(120), "pax")
            .bytes();
    var contents = new ArrayList<String>();

    var entries = read(tar, contents);

    assertThat(entries)
        .extracting(TarEntry::name)
        .containsExactly(longName, "pax/" + "p".repeat(120));
    assertThat(contents).containsExactly("long", "pax");
  }

  @Test
  public void gnuBase256NumbersAreRead() throws Exception {
    var tar = new TestTar().file("big", 0644, "abc").file("next", 0644, "n").bytes();
    // rewrite the size field (offset 124, 12 bytes) of the first header as base-256: 0x80, then 3
    java.util.Arrays.fill(tar, 124, 136, (byte) 0);
    tar[124] = (byte) 0x80;
    tar[135] = 3;
    java.util.Arrays.fill(tar, 148, 156, (byte) ' ');
    long sum = 0;
    for (int i = 0; i < 512; i++) {
      sum += tar[i] & 0xff;
    }
    var checksum = String.format("%06o", sum).getBytes(StandardCharsets.US_ASCII);
    System.arraycopy(checksum, 0, tar, 148, 6);
    tar[154] = 0;
    var contents = new ArrayList<String>();

    var entries = read(tar, contents);

    assertThat(entries).extracting(TarEntry::name).containsExactly("big", "next");
    assertThat(contents).containsExactly("abc", "n");
  }

  @Test
  public void aHeaderWithAWrongChecksumIsRefused() {
    var tar = new TestTar().file("a", 0644, "a").bytes();
    tar[0] = 'b';
    assertThatThrownBy(() -> read(tar, new ArrayList<>()))
        .isInstanceOf(KoraException.class)
        .satisfies(
            e -> assertThat(((KoraException) e).kind()).isEqualTo(ErrorKind.INVALID_ARGUMENT))
        .hasMessageContaining("checksum");
  }

  @Test
  public void aTruncatedArchiveFailsInsteadOfEndingQuietly() {
    var tar = new TestTar().file("a", 0644, "x".repeat(2000)).bytes();
    var truncated = Arrays.copyOf(tar, 1024);
    assertThatThrownBy(() -> read(truncated, new ArrayList<>()))
        .isInstanceOf(java.io.EOFException.class);
  }
}
