package dev.runkora.conformance.autoscaler;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicReference;

/** A clock that moves only when a test moves it. Safe to read from any thread. */
public final class ManualClock implements InstantSource {

  private final AtomicReference<Instant> now;

  /** Creates a clock standing at {@code start}. */
  public ManualClock(Instant start) {
    this.now = new AtomicReference<>(start);
  }

  /** Creates a clock standing at 2026-01-01T00:00:00Z. */
  public ManualClock() {
    this(Instant.parse("2026-01-01T00:00:00Z"));
  }

  @Override
  public Instant instant() {
    return now.get();
  }

  /** Moves the clock forward (or back, for a negative duration). */
  public void advance(Duration duration) {
    now.updateAndGet(t -> t.plus(duration));
  }
}
