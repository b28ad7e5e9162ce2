package dev.runkora.sandboxd.engine;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/** Destroys expired claims every five seconds, even when their clients vanished. */
public final class Reaper implements AutoCloseable {

  private static final System.Logger LOG = System.getLogger(Reaper.class.getName());

  /** How often the reaper runs. */
  public static final long PERIOD_SECONDS = 5;

  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(
          Thread.ofVirtual().name("sandboxd-reaper").factory());

  /** Starts reaping. */
  public Reaper(Claims claims) {
    timer.scheduleWithFixedDelay(
        () -> {
          try {
            int n = claims.reap();
            if (n > 0) {
              LOG.log(System.Logger.Level.INFO, "reaped {0} expired sandbox(es)", n);
            }
          } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "reap pass failed", e);
          }
        },
        PERIOD_SECONDS,
        PERIOD_SECONDS,
        TimeUnit.SECONDS);
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
