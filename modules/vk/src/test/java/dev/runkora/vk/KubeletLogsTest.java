package dev.runkora.vk;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class KubeletLogsTest {

  private static String tail(String log, long lines) {
    return new String(
        KubeletServer.tailLines(log.getBytes(StandardCharsets.UTF_8), lines),
        StandardCharsets.UTF_8);
  }

  @Test
  void tailLinesKeepsTheLastLinesWithTheirNewlines() {
    assertThat(tail("a\nb\nc\n", 1)).isEqualTo("c\n");
    assertThat(tail("a\nb\nc\n", 2)).isEqualTo("b\nc\n");
    assertThat(tail("a\nb\nc\n", 5)).isEqualTo("a\nb\nc\n");
    assertThat(tail("a\nb\nunfinished", 1)).isEqualTo("unfinished");
    assertThat(tail("a\nb\n", 0)).isEmpty();
    assertThat(tail("", 3)).isEmpty();
  }
}
