package dev.runkora.common.files;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PrivateFilesTest {

  @TempDir Path temp;

  @Test
  void replaceWritesAPrivateFileAndLeavesNoTemporaryBehind() throws Exception {
    Path dir = PrivateFiles.directory(temp.resolve("state"));
    Path file = dir.resolve("claims.json");
    PrivateFiles.replace(file, "{}".getBytes(StandardCharsets.UTF_8), false);
    PrivateFiles.replace(file, "{\"a\":1}".getBytes(StandardCharsets.UTF_8), true);

    assertThat(Files.readString(file)).isEqualTo("{\"a\":1}");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
        .isEqualTo("rw-------");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir)))
        .isEqualTo("rwx------");
    try (var names = Files.list(dir)) {
      assertThat(names).containsExactly(file);
    }
  }
}
