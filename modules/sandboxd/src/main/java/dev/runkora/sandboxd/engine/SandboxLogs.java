package dev.runkora.sandboxd.engine;

import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What the commands of each sandbox wrote to stdout and stderr, the last {@link #CAP} bytes per
 * sandbox, in memory: {@code GET /v1/sandboxes/{id}/logs}. A log is kept under the sandbox's
 * runtime name and dropped when the sandbox is destroyed.
 */
public final class SandboxLogs {

  /** How much of a sandbox's output is kept: the last 1 MiB. */
  public static final int CAP = 1 << 20;

  private final ConcurrentHashMap<String, Log> logs = new ConcurrentHashMap<>();
  private final int cap;

  /** Creates the logs with the default cap. */
  public SandboxLogs() {
    this(CAP);
  }

  /** Creates the logs with a cap per sandbox (tests use a small one). */
  public SandboxLogs(int cap) {
    if (cap <= 0) {
      throw new IllegalArgumentException("cap must be positive");
    }
    this.cap = cap;
  }

  /** Returns the log of a sandbox, made empty the first time. */
  public Log of(String vm) {
    return logs.computeIfAbsent(vm, k -> new Log(cap));
  }

  /** Drops the log of a sandbox; a reader following it ends, later appends go nowhere. */
  public void drop(String vm) {
    Log log = logs.remove(vm);
    if (log != null) {
      log.close();
    }
  }

  /** How many sandboxes have a log. */
  public int size() {
    return logs.size();
  }

  /**
   * The output of one sandbox: a ring of the last {@code cap} bytes (grown to it as output comes),
   * and the count of every byte ever appended, which is the position followers read from. Appends
   * from concurrent commands are kept whole (a chunk is never split by another), in the order they
   * arrive.
   */
  public static final class Log {
    private static final int INITIAL = 4096;

    private final int cap;
    private byte[] ring;
    private long written;
    private boolean closed;

    Log(int cap) {
      this.cap = cap;
      this.ring = new byte[Math.min(cap, INITIAL)];
    }

    /** Appends a chunk of output. */
    public synchronized void append(byte[] bytes, int offset, int length) {
      if (closed || length <= 0) {
        return;
      }
      if (ring.length < cap && written + length > ring.length) {
        // Not wrapped yet: the bytes are at [0, written); grow towards the cap.
        long wanted = Math.max(2L * ring.length, written + length);
        ring = Arrays.copyOf(ring, (int) Math.min(cap, wanted));
      }
      if (length > cap) {
        written += length - cap;
        offset += length - cap;
        length = cap;
      }
      int at = (int) (written % cap);
      int first = Math.min(length, cap - at);
      System.arraycopy(bytes, offset, ring, at, first);
      System.arraycopy(bytes, offset + first, ring, 0, length - first);
      written += length;
      notifyAll();
    }

    /** The last {@code tail} bytes kept (all of them when it is larger). */
    public synchronized byte[] tail(long tail) {
      return copy(from(tail));
    }

    /** The position of the last {@code tail} bytes kept, where a follower starts reading. */
    public synchronized long from(long tail) {
      return written - Math.min(Math.min(written, ring.length), Math.max(tail, 0));
    }

    /**
     * Waits up to {@code millis} for output past {@code from}, and returns what is kept of it with
     * the position after it (nothing after the wait, or once the log is dropped). Output that left
     * the ring before it was read is skipped.
     */
    public synchronized Chunk read(long from, long millis) throws InterruptedException {
      long deadline = System.nanoTime() + millis * 1_000_000;
      long left;
      while (written <= from && !closed && (left = deadline - System.nanoTime()) > 0) {
        wait(Math.max(1, left / 1_000_000));
      }
      return new Chunk(copy(Math.max(from, written - Math.min(written, ring.length))), written);
    }

    /** Whether the sandbox is gone. */
    public synchronized boolean closed() {
      return closed;
    }

    synchronized void close() {
      closed = true;
      notifyAll();
    }

    /** Bytes read and the position after them. */
    public record Chunk(byte[] bytes, long end) {}

    private byte[] copy(long from) {
      int length = (int) (written - from);
      if (length <= 0) {
        return new byte[0];
      }
      int size = ring.length;
      int at = (int) (from % size);
      int first = Math.min(length, size - at);
      byte[] out = Arrays.copyOfRange(ring, at, at + first);
      if (first < length) {
        out = Arrays.copyOf(out, length);
        System.arraycopy(ring, 0, out, first, length - first);
      }
      return out;
    }
  }
}
