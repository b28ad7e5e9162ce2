package dev.runkora.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class SamplesTest {

  @Test
  void percentilesAreNearestRank() {
    Samples s = new Samples();
    for (int i = 100; i >= 1; i--) {
      s.add(i);
    }

    assertThat(s.p50()).isEqualTo(50);
    assertThat(s.p99()).isEqualTo(99);
    assertThat(s.percentile(100)).isEqualTo(100);
    assertThat(s.percentile(0.5)).isEqualTo(1);
  }

  @Test
  void mergingKeepsEverySample() {
    Samples a = new Samples();
    Samples b = new Samples();
    for (int i = 0; i < 100; i++) {
      a.add(1);
      b.add(3);
    }
    a.addAll(b);

    assertThat(a.size()).isEqualTo(200);
    assertThat(a.p50()).isEqualTo(1);
    assertThat(a.p99()).isEqualTo(3);
  }

  @Test
  void noSamplesIsAnError() {
    assertThatThrownBy(() -> new Samples().p50()).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void figuresAreFormattedForTheTable() {
    assertThat(Samples.millis(1_234_000)).isEqualTo("1.23 ms");
    assertThat(Samples.millis(12_340_000)).isEqualTo("12.3 ms");
    assertThat(Samples.ratio(3, 2)).isEqualTo("1.50x");
  }
}
