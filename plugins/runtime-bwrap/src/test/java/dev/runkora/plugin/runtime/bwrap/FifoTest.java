package dev.runkora.plugin.runtime.bwrap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Named pipes come out the same from the mkfifo program as from the native call. */
class FifoTest {

  @Test
  void programMakesAnOwnerOnlyNamedPipeAndRefusesAnExistingPath(@TempDir Path dir)
      throws IOException {
    var fifo = new Fifo(Path.of("/usr/bin/mkfifo"), false);
    var pipe = dir.resolve("p");

    fifo.make(pipe);

    var attributes =
        Files.readAttributes(pipe, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    assertThat(attributes.isOther()).isTrue();
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(pipe)))
        .isEqualTo("rw-------");
    assertThatThrownBy(() -> fifo.make(pipe)).isInstanceOf(IOException.class);
  }

  @Test
  void missingProgramFailsWithoutMakingAnything(@TempDir Path dir) {
    var fifo = new Fifo(Path.of("/nonexistent/mkfifo"), false);

    assertThatThrownBy(() -> fifo.make(dir.resolve("p"))).isInstanceOf(Exception.class);
    assertThat(dir.resolve("p")).doesNotExist();
  }
}
