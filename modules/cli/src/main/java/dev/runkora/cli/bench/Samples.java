package dev.runkora.cli.bench;

import java.util.Arrays;
import java.util.Locale;

/** Latency samples in nanoseconds, with nearest-rank percentiles. */
final class Samples {
  private long[] values = new long[64];
  private int size;

  void add(long nanos) {
    if (size == values.length) {
      values = Arrays.copyOf(values, size * 2);
    }
    values[size++] = nanos;
  }

  void addAll(Samples other) {
    for (int i = 0; i < other.size; i++) {
      add(other.values[i]);
    }
  }

  int size() {
    return size;
  }

  /** The nearest-rank percentile {@code p} in (0, 100]. */
  long percentile(double p) {
    if (size == 0) {
      throw new IllegalStateException("no samples");
    }
    long[] sorted = Arrays.copyOf(values, size);
    Arrays.sort(sorted);
    int rank = (int) Math.ceil(p / 100.0 * size);
    return sorted[Math.max(0, Math.min(size, rank) - 1)];
  }

  long p50() {
    return percentile(50);
  }

  long p99() {
    return percentile(99);
  }

  static String millis(long nanos) {
    double ms = nanos / 1e6;
    return String.format(Locale.ROOT, ms < 10 ? "%.2f ms" : "%.1f ms", ms);
  }

  static String ratio(long a, long b) {
    return String.format(Locale.ROOT, "%.2fx", (double) a / b);
  }
}
