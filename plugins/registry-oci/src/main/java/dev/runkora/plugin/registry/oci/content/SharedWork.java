package dev.runkora.plugin.registry.oci.content;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * Runs one piece of work per key at a time: a caller that asks for a key already being worked on
 * waits for that work and gets its result or its failure, instead of doing it again.
 *
 * @param <V> the result
 */
final class SharedWork<V> {
  private final ConcurrentHashMap<String, CompletableFuture<V>> running = new ConcurrentHashMap<>();

  /** Runs the work on the calling thread, or waits for the caller already running it. */
  V run(String key, Supplier<V> work) {
    var mine = new CompletableFuture<V>();
    var theirs = running.putIfAbsent(key, mine);
    if (theirs != null) {
      try {
        return theirs.join();
      } catch (CompletionException e) {
        if (e.getCause() instanceof RuntimeException runtime) {
          throw runtime;
        }
        if (e.getCause() instanceof Error error) {
          throw error;
        }
        throw e;
      }
    }
    try {
      V value = work.get();
      mine.complete(value);
      return value;
    } catch (RuntimeException | Error e) {
      mine.completeExceptionally(e);
      throw e;
    } finally {
      running.remove(key, mine);
    }
  }
}
