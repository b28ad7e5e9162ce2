package dev.runkora.vk;

/**
 * A token bucket in front of the Kubernetes client: {@code --kube-api-qps} tokens a second, up to
 * {@code --kube-api-burst} at once. client-java has no limiter of its own.
 */
final class RateLimiter {
  private final double perNano;
  private final double burst;
  private double tokens;
  private long last;

  RateLimiter(double qps, int burst) {
    this.perNano = qps / 1e9;
    this.burst = burst;
    this.tokens = burst;
    this.last = System.nanoTime();
  }

  /** Waits for one token. */
  void acquire() {
    long wait;
    synchronized (this) {
      long now = System.nanoTime();
      tokens = Math.min(burst, tokens + (now - last) * perNano);
      last = now;
      tokens -= 1;
      wait = tokens >= 0 ? 0 : (long) (-tokens / perNano);
    }
    if (wait > 0) {
      try {
        Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
