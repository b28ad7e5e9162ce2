package dev.runkora.sandboxd.engine;

/** Claims per second of one pool, averaged over the last ten whole seconds. Not thread-safe. */
final class ArrivalMeter {

  private static final int SECONDS = 10;

  private final long[] counts = new long[SECONDS];
  private final long[] stamps = new long[SECONDS];

  void record(long epochSecond) {
    int slot = Math.floorMod(epochSecond, SECONDS);
    if (stamps[slot] != epochSecond) {
      stamps[slot] = epochSecond;
      counts[slot] = 0;
    }
    counts[slot]++;
  }

  double perSecond(long epochSecond) {
    long total = 0;
    for (int i = 0; i < SECONDS; i++) {
      if (epochSecond - stamps[i] < SECONDS && stamps[i] <= epochSecond) {
        total += counts[i];
      }
    }
    return total / (double) SECONDS;
  }
}
