package dev.runkora.sandboxd.engine;

/** Lease lengths (reference §6): 0 means the 300 s default; more than 86400 s is clamped. */
public final class Lease {

  /** The default lease. */
  public static final long DEFAULT_SECONDS = 300;

  /** The longest lease. */
  public static final long MAX_SECONDS = 86_400;

  private Lease() {}

  /** Returns the granted lease for a requested one; 400 for a negative request. */
  public static long grant(long requestedSeconds) {
    if (requestedSeconds < 0) {
      throw ApiException.badRequest("ttl_seconds must not be negative");
    }
    if (requestedSeconds == 0) {
      return DEFAULT_SECONDS;
    }
    return Math.min(requestedSeconds, MAX_SECONDS);
  }
}
