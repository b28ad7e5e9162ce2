package dev.runkora.sandboxd.engine;

import dev.runkora.sandboxd.SandboxdConfig;
import dev.runkora.spi.autoscaler.Autoscaler;
import dev.runkora.spi.autoscaler.PoolDemand;
import dev.runkora.spi.core.ErrorKind;
import dev.runkora.spi.core.KoraException;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The warm pools: a last-in first-out stack of claim-ready sandboxes per pool key, kept at the
 * autoscaler's target by refills that share the provisioner's concurrency budget.
 *
 * <p>A claim pops a warm sandbox under the pool's own short lock and never waits for a refill.
 * Targets are recomputed once a second and after every claim; a pool above its target for a full
 * decay period (a minute) is trimmed, oldest sandboxes first.
 */
public final class PoolManager implements AutoCloseable {

  private static final System.Logger LOG = System.getLogger(PoolManager.class.getName());
  private static final Duration DECAY = Duration.ofSeconds(60);
  private static final Duration MAX_BACKOFF = Duration.ofSeconds(30);

  /**
   * What a pool looks like now.
   *
   * @param key the pool key
   * @param warm claim-ready sandboxes
   * @param target the current target
   * @param refilling sandboxes being made
   * @param golden whether the template's root is ready (the analogue of upstream's golden)
   * @param lastError the last provisioning failure, or empty
   * @param atCapacity why refill is parked for want of capacity, or empty
   */
  public record PoolView(
      PoolKey key,
      int warm,
      int target,
      int refilling,
      boolean golden,
      String lastError,
      String atCapacity) {}

  private static final class Pool {
    final PoolKey key;
    final ArrayDeque<String> warm = new ArrayDeque<>();
    final ArrivalMeter arrivals = new ArrivalMeter();
    volatile int floor;
    volatile int ceiling;
    int provisioning;
    int pending;
    volatile int target;
    boolean retired;
    long aboveSinceNanos = -1;
    volatile long leadNanos = Duration.ofSeconds(1).toNanos();
    volatile String lastError = "";
    volatile String atCapacity = "";
    long backoffUntilNanos;
    int failures;

    Pool(PoolKey key, int floor, int ceiling) {
      this.key = key;
      this.floor = floor;
      this.ceiling = ceiling;
      this.target = floor;
    }
  }

  private final Provisioner provisioner;
  private final Autoscaler autoscaler;
  private final InstantSource clock;

  /**
   * Refills, trims and target passes run on platform threads of their own, not on virtual threads:
   * making a sandbox spends long native calls (process spawns, file and mount work) that would pin
   * the few carrier threads the HTTP handlers run on, so claims would wait behind refills.
   */
  private final ExecutorService workers =
      Executors.newCachedThreadPool(
          Thread.ofPlatform().daemon().name("sandboxd-refill-", 0).factory());

  private final ScheduledExecutorService timer;
  private final Map<PoolKey, Pool> pools = new ConcurrentHashMap<>();
  private final Object tickLock = new Object();
  private final AtomicBoolean tickQueued = new AtomicBoolean();
  private volatile boolean draining;
  private volatile boolean closed;

  /**
   * Creates the manager; {@link #start} begins refilling. How many sandboxes are made at once is
   * the provisioner's budget.
   */
  public PoolManager(Provisioner provisioner, Autoscaler autoscaler, InstantSource clock) {
    this.provisioner = provisioner;
    this.autoscaler = autoscaler;
    this.clock = clock;
    this.timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> Thread.ofPlatform().daemon().name("sandboxd-pools").unstarted(r));
  }

  /** Returns the refill budget for a configured value (0 = auto). */
  public static int concurrency(int configured) {
    if (configured > 0) {
      return configured;
    }
    int auto = Runtime.getRuntime().availableProcessors() * 2 / 3;
    return Math.clamp(auto, 4, 256);
  }

  /** Starts the once-a-second target and refill loop. */
  public void start() {
    timer.scheduleWithFixedDelay(this::tickSafely, 0, 1, TimeUnit.SECONDS);
  }

  /**
   * Replaces the set of pools. Pools no longer listed retire: their warm sandboxes are destroyed.
   * Claims are never touched.
   */
  public void configure(List<SandboxdConfig.Pool> desired) {
    var wanted = new LinkedHashMap<PoolKey, SandboxdConfig.Pool>();
    for (var p : desired) {
      wanted.put(PoolKey.of(p.template(), p.net(), p.size()), p);
    }
    synchronized (tickLock) {
      for (var entry : wanted.entrySet()) {
        var p = entry.getValue();
        pools.compute(
            entry.getKey(),
            (k, pool) -> {
              if (pool == null) {
                return new Pool(k, p.warm(), p.warmMax());
              }
              pool.floor = p.warm();
              pool.ceiling = p.warmMax();
              return pool;
            });
      }
      for (var pool : List.copyOf(pools.values())) {
        if (!wanted.containsKey(pool.key)) {
          pools.remove(pool.key);
          List<String> doomed;
          synchronized (pool) {
            pool.retired = true;
            doomed = List.copyOf(pool.warm);
            pool.warm.clear();
          }
          destroyAll(doomed);
          safely(() -> autoscaler.forget(pool.key.label()));
        }
      }
    }
    kick();
  }

  /** Returns whether a key has a configured pool. */
  public boolean pooled(PoolKey key) {
    return pools.containsKey(key);
  }

  /**
   * Pops the most recently added warm sandbox of a pool, if there is one. Counts the arrival (and a
   * miss when the stack was empty) for the autoscaler. A miss asks for a refill at once; after a
   * hit the caller asks ({@link #refillAfterHit}) once its answer is out, so that the refill's
   * processes do not compete with the claim for the CPU.
   */
  public Optional<String> takeWarm(PoolKey key) {
    Pool pool = pools.get(key);
    if (pool == null) {
      return Optional.empty();
    }
    String name;
    synchronized (pool) {
      pool.arrivals.record(clock.instant().getEpochSecond());
      name = pool.warm.pollFirst();
      if (name == null) {
        pool.pending++;
      }
    }
    if (name == null) {
      kick();
    }
    return Optional.ofNullable(name);
  }

  /** Counts a claim of a pool that was served cold on purpose (mounts the runtime cannot add). */
  public void countArrival(PoolKey key) {
    Pool pool = pools.get(key);
    if (pool != null) {
      synchronized (pool) {
        pool.arrivals.record(clock.instant().getEpochSecond());
        pool.pending++;
      }
      kick();
    }
  }

  /** Cordons (destroying every warm sandbox) or lifts the cordon (refilling at once). */
  public void draining(boolean value) {
    draining = value;
    if (value) {
      for (Pool pool : pools.values()) {
        List<String> doomed;
        synchronized (pool) {
          doomed = List.copyOf(pool.warm);
          pool.warm.clear();
        }
        destroyAll(doomed);
      }
    }
    kick();
  }

  /** Returns every pool's state, sorted by key. */
  public List<PoolView> view() {
    var result = new ArrayList<PoolView>();
    for (Pool pool : pools.values()) {
      synchronized (pool) {
        result.add(
            new PoolView(
                pool.key,
                pool.warm.size(),
                pool.target,
                pool.provisioning,
                provisioner.templates().ready(pool.key.template()),
                pool.lastError,
                pool.atCapacity));
      }
    }
    result.sort(Comparator.comparing(v -> v.key().label()));
    return result;
  }

  /**
   * How long the refill after a warm hit waits. The claimant's next moments (reading the answer,
   * its first exec) would otherwise share the CPU with the refill's process spawns and mounts, and
   * with the kernel's teardown of the sandbox released just before; a few milliseconds later the
   * refill costs the same and is in nobody's way. Claims in that window coalesce into one pass.
   */
  static final long REFILL_DEFER_MILLIS = 25;

  private final AtomicBoolean deferredQueued = new AtomicBoolean();

  /**
   * Asks for the refill after a warm hit of a pool: at once when the pool is down to a quarter of
   * its target (a burst is draining it), else {@link #REFILL_DEFER_MILLIS} later.
   */
  public void refillAfterHit(PoolKey key) {
    Pool pool = pools.get(key);
    if (pool == null) {
      return;
    }
    int warm;
    synchronized (pool) {
      warm = pool.warm.size();
    }
    if (warm * 4 <= pool.target) {
      kick();
      return;
    }
    if (closed || !deferredQueued.compareAndSet(false, true)) {
      return;
    }
    try {
      timer.schedule(
          () -> {
            deferredQueued.set(false);
            kick();
          },
          REFILL_DEFER_MILLIS,
          TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      deferredQueued.set(false);
    }
  }

  /** Asks for a target and refill pass soon, on a worker thread; coalesces repeated asks. */
  public void kick() {
    if (closed || !tickQueued.compareAndSet(false, true)) {
      return;
    }
    try {
      workers.execute(
          () -> {
            tickQueued.set(false);
            tickSafely();
          });
    } catch (java.util.concurrent.RejectedExecutionException e) {
      tickQueued.set(false);
    }
  }

  private void tickSafely() {
    try {
      tick();
    } catch (RuntimeException e) {
      LOG.log(System.Logger.Level.WARNING, "pool pass failed", e);
    }
  }

  /** One target and refill pass over every pool. */
  void tick() {
    if (closed) {
      return;
    }
    synchronized (tickLock) {
      long now = System.nanoTime();
      long second = clock.instant().getEpochSecond();
      for (Pool pool : pools.values()) {
        int warm;
        int provisioning;
        int pending;
        double rate;
        synchronized (pool) {
          warm = pool.warm.size();
          provisioning = pool.provisioning;
          pending = pool.pending;
          pool.pending = 0;
          rate = pool.arrivals.perSecond(second);
        }
        int target = draining ? 0 : target(pool, warm, provisioning, pending, rate);
        pool.target = target;
        if (!draining && now - pool.backoffUntilNanos >= 0) {
          for (int i = warm + provisioning; i < target; i++) {
            refill(pool);
          }
        }
        trim(pool, target, now);
      }
    }
  }

  private int target(Pool pool, int warm, int provisioning, int pending, double rate) {
    int floor = pool.floor;
    int ceiling = pool.ceiling;
    if (ceiling == 0) {
      return floor;
    }
    try {
      int asked =
          autoscaler.warmTarget(
              new PoolDemand(
                  pool.key.label(),
                  floor,
                  ceiling,
                  rate,
                  warm,
                  provisioning,
                  pending,
                  Duration.ofNanos(pool.leadNanos)));
      return Math.clamp(asked, floor, Math.max(floor, ceiling));
    } catch (RuntimeException e) {
      LOG.log(System.Logger.Level.WARNING, "autoscaler failed for " + pool.key.label(), e);
      return floor;
    }
  }

  private void trim(Pool pool, int target, long now) {
    List<String> doomed = new ArrayList<>();
    synchronized (pool) {
      if (pool.warm.size() <= target) {
        pool.aboveSinceNanos = -1;
        return;
      }
      if (pool.aboveSinceNanos < 0) {
        pool.aboveSinceNanos = now;
        return;
      }
      if (now - pool.aboveSinceNanos < DECAY.toNanos()) {
        return;
      }
      while (pool.warm.size() > target) {
        doomed.add(pool.warm.pollLast());
      }
      pool.aboveSinceNanos = -1;
    }
    destroyAll(doomed);
  }

  private void refill(Pool pool) {
    synchronized (pool) {
      pool.provisioning++;
    }
    workers.execute(
        () -> {
          String made = null;
          try {
            if (closed || draining || pool.retired) {
              return;
            }
            long start = System.nanoTime();
            made = provisioner.create(pool.key, List.of());
            long took = System.nanoTime() - start;
            pool.leadNanos = (pool.leadNanos * 3 + took) / 4;
            synchronized (pool) {
              pool.failures = 0;
              pool.lastError = "";
              pool.atCapacity = "";
              if (!closed && !draining && !pool.retired) {
                pool.warm.addFirst(made);
                made = null;
              }
            }
          } catch (RuntimeException e) {
            failed(pool, e);
          } finally {
            synchronized (pool) {
              pool.provisioning--;
            }
            if (made != null) {
              provisioner.destroy(made);
            }
          }
        });
  }

  private void failed(Pool pool, RuntimeException e) {
    synchronized (pool) {
      pool.failures++;
      long backoff =
          Math.min(
              MAX_BACKOFF.toNanos(),
              Duration.ofMillis(500).toNanos() << Math.min(pool.failures, 10));
      pool.backoffUntilNanos = System.nanoTime() + backoff;
      pool.lastError = e.getMessage() == null ? e.toString() : e.getMessage();
      if (e.getCause() instanceof KoraException k && k.kind() == ErrorKind.RESOURCE_EXHAUSTED) {
        pool.atCapacity = pool.lastError;
      }
    }
    LOG.log(
        System.Logger.Level.WARNING,
        "refill of pool {0} failed: {1}",
        pool.key.label(),
        pool.lastError);
  }

  private void destroyAll(List<String> names) {
    for (String name : names) {
      try {
        workers.execute(() -> provisioner.destroy(name));
      } catch (java.util.concurrent.RejectedExecutionException e) {
        provisioner.destroy(name);
      }
    }
  }

  private static void safely(Runnable action) {
    try {
      action.run();
    } catch (RuntimeException e) {
      LOG.log(System.Logger.Level.WARNING, "autoscaler call failed", e);
    }
  }

  /** Stops refilling and destroys every warm sandbox (claimed ones are left running). */
  @Override
  public void close() {
    closed = true;
    timer.shutdownNow();
    synchronized (tickLock) {
      for (Pool pool : pools.values()) {
        List<String> doomed;
        synchronized (pool) {
          doomed = List.copyOf(pool.warm);
          pool.warm.clear();
        }
        destroyAll(doomed);
      }
    }
    workers.shutdown();
    try {
      if (!workers.awaitTermination(20, TimeUnit.SECONDS)) {
        LOG.log(System.Logger.Level.WARNING, "pool workers did not stop within 20 s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
