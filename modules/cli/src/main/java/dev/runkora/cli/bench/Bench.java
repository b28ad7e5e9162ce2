package dev.runkora.cli.bench;

import dev.runkora.api.ApiException;
import dev.runkora.api.ClaimRequest;
import dev.runkora.api.ClaimResponse;
import dev.runkora.api.ExecOutput;
import dev.runkora.api.ExecRequest;
import dev.runkora.api.ExecResult;
import dev.runkora.api.Info;
import dev.runkora.api.PoolKey;
import dev.runkora.api.PoolSpec;
import dev.runkora.api.PoolStatus;
import dev.runkora.api.SandboxdClient;
import dev.runkora.sandboxd.Sandboxd;
import dev.runkora.sandboxd.SandboxdConfig;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * {@code kora bench}: starts kora-sandboxd in this process on a free port with a temporary data
 * directory, measures it over HTTP, and reports each figure as a ratio against a baseline measured
 * in the same run.
 */
public final class Bench {
  private static final PoolKey WARM_KEY = new PoolKey("host", "none", "small");
  // A key with no pool: every claim of it provisions cold.
  private static final PoolKey COLD_KEY = new PoolKey("host", "none", "medium");
  private static final int WARM_BATCH = 16;

  /**
   * What to measure.
   *
   * @param sandboxes warm sandboxes for the memory figure and the concurrent clients; 0 skips both
   * @param iterations samples per latency figure
   * @param runtime the runtime plugin
   * @param clients concurrent clients for the throughput figure
   * @param seconds how long the concurrent clients run
   */
  public record Options(int sandboxes, int iterations, String runtime, int clients, int seconds) {}

  private final Options options;
  private final PrintStream progress;
  private final List<String[]> rows = new ArrayList<>();
  private final List<String> notes = new ArrayList<>();
  private SandboxdClient client;

  private Bench(Options options, PrintStream progress) {
    this.options = options;
    this.progress = progress;
  }

  /** Runs every measurement and prints the table to {@code out}; returns the exit status. */
  public static int run(Options options, PrintStream out) {
    Bench bench = new Bench(options, System.err);
    try {
      bench.measure();
    } catch (IOException | RuntimeException e) {
      System.err.println("kora bench: " + e.getMessage());
      bench.print(out);
      return 1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 130;
    }
    bench.print(out);
    return 0;
  }

  private void measure() throws IOException, InterruptedException {
    Path tmp = Files.createTempDirectory("kora-bench-");
    Path dataDir = tmp.resolve("data");
    SandboxdConfig config =
        SandboxdConfig.defaults(dataDir)
            .withListen("127.0.0.1", 0)
            .withPools(List.of(new SandboxdConfig.Pool("host", "none", "small", WARM_BATCH, 0)))
            .withRuntime(options.runtime(), Map.of());
    step("starting kora-sandboxd (" + options.runtime() + ") in " + dataDir);
    Sandboxd daemon = Sandboxd.start(config);
    try {
      client =
          SandboxdClient.builder("http://127.0.0.1:" + daemon.port())
              .token(daemon.rootToken())
              .requestTimeout(Duration.ofMinutes(2))
              .build();
      waitForWarm(WARM_KEY, WARM_BATCH, Duration.ofMinutes(2));
      warmClaims();
      coldClaims();
      execRoundTrip();
      if (options.sandboxes() > 0) {
        manyWarm();
        concurrentBurst();
        concurrentClients();
      }
      step("cleaning up");
    } finally {
      if (client != null) {
        client.close();
      }
      daemon.close();
      deleteTree(tmp);
    }
  }

  // ---- 1. warm claim against /healthz ----

  /**
   * Each sample is taken on a settled daemon: the pool is full again (the refill a claim kicks off
   * is not part of the claim), then one GET /healthz and one claim are timed back to back.
   */
  private void warmClaims() throws InterruptedException {
    int warmUp = Math.min(options.iterations(), 100);
    step("warm-up: " + warmUp + " claims and health checks, untimed");
    for (int i = 0; i < warmUp; i++) {
      client.healthz();
      ClaimResponse c = client.claim(ClaimRequest.of(WARM_KEY));
      client.releaseIfPresent(c.id(), c.token());
      waitForWarm(WARM_KEY, WARM_BATCH, Duration.ofMinutes(2));
    }
    step("warm claims and GET /healthz, " + options.iterations() + " each");
    Samples claims = new Samples();
    Samples health = new Samples();
    while (claims.size() < options.iterations()) {
      waitForWarm(WARM_KEY, WARM_BATCH, Duration.ofMinutes(2));
      long t0 = System.nanoTime();
      client.healthz();
      health.add(System.nanoTime() - t0);
      t0 = System.nanoTime();
      ClaimResponse c = client.claim(ClaimRequest.of(WARM_KEY));
      claims.add(System.nanoTime() - t0);
      client.releaseIfPresent(c.id(), c.token());
    }
    warmClaimP50 = claims.p50();
    warmClaimP99 = claims.p99();
    row("warm claim over HTTP (claims.json commit)", claims, "GET /healthz", health, "<= 2x");
  }

  private long warmClaimP50;
  private int baselineFailures;
  private String lastBaselineFailure = "";
  private long warmClaimP99;

  // ---- 2. cold claim against warm claim; 3. cold create + first exec against runc ----

  /**
   * Cold claims with a first exec, interleaved with the baselines ({@code runc run} of the same
   * root, bare bubblewrap) so that each round sees the same load on the machine.
   */
  private void coldClaims() throws IOException, InterruptedException {
    int n = Math.min(options.iterations(), 50);
    Optional<Path> runc = Baselines.which("runc");
    Optional<Path> bwrap = Baselines.which("bwrap");
    Path dir = Files.createTempDirectory("kora-bench-runc-");
    try {
      Path bundle = null;
      Path state = Files.createDirectories(dir.resolve("state"));
      if (runc.isPresent()) {
        try {
          bundle = Baselines.runcBundle(runc.get(), dir.resolve("bundle"));
          Baselines.timeRunc(runc.get(), bundle, 3, state, 0);
        } catch (IOException e) {
          notes.add("runc baseline skipped: " + e.getMessage());
          bundle = null;
        }
      } else {
        notes.add("runc baseline skipped: runc is not installed (apt runc)");
      }
      step(
          "cold claims of "
              + COLD_KEY
              + " with a first exec, "
              + n
              + (bundle != null ? ", each beside a runc run of the same root" : "")
              + (bwrap.isPresent() ? " and a bare bwrap" : ""));
      Samples cold = new Samples();
      Samples coldExec = new Samples();
      Samples runcRuns = new Samples();
      Samples bare = new Samples();
      for (int i = 0; i < n; i++) {
        long t0 = System.nanoTime();
        ClaimResponse c = client.claim(ClaimRequest.of(COLD_KEY));
        long claimed = System.nanoTime();
        ExecResult r = client.exec(c.id(), c.token(), ExecRequest.of("true"));
        long executed = System.nanoTime();
        client.releaseIfPresent(c.id(), c.token());
        if (r.exitCode() != 0) {
          throw new IllegalStateException("true exited " + r.exitCode() + " in a sandbox");
        }
        cold.add(claimed - t0);
        coldExec.add(executed - t0);
        // A failed baseline run costs its sample, not the whole benchmark.
        try {
          if (bundle != null) {
            runcRuns.addAll(Baselines.timeRunc(runc.get(), bundle, 1, state, i + 10));
          }
          if (bwrap.isPresent()) {
            bare.addAll(Baselines.time(Baselines.bwrapTrue(bwrap.get()), 1));
          }
        } catch (IOException e) {
          baselineFailures++;
          lastBaselineFailure = e.getMessage();
        }
      }
      rows.add(
          new String[] {
            "cold claim (host, no warm sandbox)",
            Samples.millis(cold.p50()),
            Samples.millis(cold.p99()),
            "warm claim",
            Samples.millis(warmClaimP50),
            Samples.millis(warmClaimP99),
            Samples.ratio(cold.p50(), warmClaimP50),
            Samples.ratio(cold.p99(), warmClaimP99),
            ""
          });
      if (baselineFailures > 0) {
        notes.add(
            baselineFailures + " baseline runs failed, the last with: " + lastBaselineFailure);
      }
      if (runcRuns.size() > 0) {
        row(
            "cold create + first exec (daemon, HTTP)",
            coldExec,
            "runc run, same root",
            runcRuns,
            "<= 0.3x");
      }
      if (bare.size() > 0) {
        row("cold create + first exec (daemon, HTTP)", coldExec, "bare bwrap true", bare, "");
      }
    } finally {
      deleteTree(dir);
    }
  }

  // ---- 4. exec round trip against spawning from Java ----

  private void execRoundTrip() throws IOException, InterruptedException {
    int n = options.iterations();
    step("exec of true in a claimed sandbox and spawn of true from Java, " + n + " each");
    waitForWarm(WARM_KEY, 1, Duration.ofMinutes(2));
    ClaimResponse c = client.claim(ClaimRequest.of(WARM_KEY));
    try {
      ExecRequest exec = ExecRequest.of("true");
      for (int i = 0; i < 50; i++) {
        client.exec(c.id(), c.token(), exec);
        Baselines.runQuietly(List.of("true"));
      }
      Samples buffered = new Samples();
      Samples streamed = new Samples();
      Samples spawn = new Samples();
      ExecOutput discard =
          ExecOutput.to(OutputStream.nullOutputStream(), OutputStream.nullOutputStream());
      boolean streaming = true;
      for (int i = 0; i < n; i++) {
        long t0 = System.nanoTime();
        client.exec(c.id(), c.token(), exec);
        buffered.add(System.nanoTime() - t0);
        if (streaming) {
          try {
            t0 = System.nanoTime();
            client.execStream(c.id(), c.token(), exec, discard);
            streamed.add(System.nanoTime() - t0);
          } catch (ApiException e) {
            streaming = false;
            notes.add("streamed exec skipped: " + e.getMessage());
          }
        }
        t0 = System.nanoTime();
        Baselines.runQuietly(List.of("true"));
        spawn.add(System.nanoTime() - t0);
      }
      row("exec `true` round trip (buffered)", buffered, "spawn `true` from Java", spawn, "<= 2x");
      if (streamed.size() > 0) {
        row("exec `true` round trip (streamed)", streamed, "spawn `true` from Java", spawn, "");
      }
    } finally {
      client.releaseIfPresent(c.id(), c.token());
    }
  }

  // ---- 5. many warm sandboxes: memory ----

  private void manyWarm() throws IOException, InterruptedException {
    int n = options.sandboxes();
    step("memory with no warm sandbox");
    client.putPools(List.of(PoolSpec.of(WARM_KEY, 0)));
    waitFor(info -> warm(info, WARM_KEY) == 0 && info.claimed() == 0, Duration.ofMinutes(2));
    Thread.sleep(1000);
    long availableBefore = Memory.available();
    long rssBefore = Memory.selfRss();
    step("filling " + n + " warm sandboxes");
    long t0 = System.nanoTime();
    client.putPools(List.of(PoolSpec.of(WARM_KEY, n)));
    waitForWarm(WARM_KEY, n, Duration.ofMinutes(15));
    double fillSeconds = (System.nanoTime() - t0) / 1e9;
    Thread.sleep(1000);
    long availableAfter = Memory.available();
    long rssAfter = Memory.selfRss();
    Memory.Tree tree = Memory.descendants();
    notes.add(
        String.format(
            Locale.ROOT,
            "%d warm sandboxes filled in %.1f s (%.0f/s)",
            n,
            fillSeconds,
            n / fillSeconds));
    notes.add(
        String.format(
            Locale.ROOT,
            "%d warm sandboxes: daemon RSS %s (was %s with none); host memory per idle sandbox"
                + " %s by PSS of its %d processes, %s by MemAvailable (goal < 2 MiB)",
            n,
            Memory.mib(rssAfter),
            Memory.mib(rssBefore),
            Memory.mib(tree.pss() / n),
            tree.processes(),
            Memory.mib(Math.max(0, availableBefore - availableAfter) / n)));
  }

  // ---- 6. claims per second by concurrent clients ----

  /** Concurrent clients claim from the full pool without releasing: warm hits only. */
  private void concurrentBurst() throws InterruptedException {
    int clients = options.clients();
    int total = Math.max(clients, options.sandboxes() * 4 / 5);
    step(clients + " concurrent clients claiming " + total + " warm sandboxes");
    AtomicLong next = new AtomicLong();
    List<ClaimResponse> held = java.util.Collections.synchronizedList(new ArrayList<>());
    Samples[] latencies = new Samples[clients];
    List<Thread> threads = new ArrayList<>();
    long t0 = System.nanoTime();
    for (int i = 0; i < clients; i++) {
      Samples s = latencies[i] = new Samples();
      threads.add(
          Thread.ofPlatform()
              .name("bench-burst-" + i)
              .start(
                  () -> {
                    while (next.incrementAndGet() <= total) {
                      long c0 = System.nanoTime();
                      held.add(client.claim(ClaimRequest.of(WARM_KEY)));
                      s.add(System.nanoTime() - c0);
                    }
                  }));
    }
    for (Thread t : threads) {
      t.join();
    }
    double seconds = (System.nanoTime() - t0) / 1e9;
    Samples all = new Samples();
    for (Samples s : latencies) {
      all.addAll(s);
    }
    notes.add(
        String.format(
            Locale.ROOT,
            "%d concurrent clients claiming %d of %d warm sandboxes: %.0f claims/s, claim p50 %s"
                + " p99 %s",
            clients,
            held.size(),
            options.sandboxes(),
            held.size() / seconds,
            Samples.millis(all.p50()),
            Samples.millis(all.p99())));
    for (ClaimResponse c : held) {
      client.releaseIfPresent(c.id(), c.token());
    }
    waitForWarm(WARM_KEY, options.sandboxes(), Duration.ofMinutes(15));
  }

  /** Concurrent clients claim and release in a loop: warm hits while refill keeps up. */
  private void concurrentClients() throws InterruptedException {
    int clients = options.clients();
    step(clients + " concurrent clients claiming and releasing for " + options.seconds() + " s");
    Map<String, Long> tiersBefore = tiers();
    AtomicLong claims = new AtomicLong();
    AtomicLong failures = new AtomicLong();
    Samples[] latencies = new Samples[clients];
    long deadline = System.nanoTime() + options.seconds() * 1_000_000_000L;
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < clients; i++) {
      Samples s = latencies[i] = new Samples();
      threads.add(
          Thread.ofPlatform()
              .name("bench-client-" + i)
              .start(
                  () -> {
                    while (System.nanoTime() < deadline) {
                      try {
                        long t0 = System.nanoTime();
                        ClaimResponse c = client.claim(ClaimRequest.of(WARM_KEY));
                        s.add(System.nanoTime() - t0);
                        claims.incrementAndGet();
                        client.releaseIfPresent(c.id(), c.token());
                      } catch (ApiException e) {
                        failures.incrementAndGet();
                      }
                    }
                  }));
    }
    long t0 = System.nanoTime();
    for (Thread t : threads) {
      t.join();
    }
    double seconds = (System.nanoTime() - t0) / 1e9;
    Samples all = new Samples();
    for (Samples s : latencies) {
      all.addAll(s);
    }
    Map<String, Long> tiersAfter = tiers();
    StringBuilder tierText = new StringBuilder();
    for (String tier : List.of("warm", "clone", "cold")) {
      long d = tiersAfter.getOrDefault(tier, 0L) - tiersBefore.getOrDefault(tier, 0L);
      if (d > 0) {
        tierText.append(tierText.isEmpty() ? "" : ", ").append(tier).append(' ').append(d);
      }
    }
    notes.add(
        String.format(
            Locale.ROOT,
            "%d concurrent clients claiming and releasing for %d s: %.0f claims/s, claim p50 %s"
                + " p99 %s; tiers: %s; failures %d",
            clients,
            options.seconds(),
            claims.get() / seconds,
            all.size() > 0 ? Samples.millis(all.p50()) : "-",
            all.size() > 0 ? Samples.millis(all.p99()) : "-",
            tierText.isEmpty() ? "unknown" : tierText,
            failures.get()));
  }

  private Map<String, Long> tiers() {
    Map<String, Long> out = new java.util.HashMap<>();
    try {
      Matcher m =
          Pattern.compile("sandboxd_claims_total\\{tier=\"(\\w+)\"\\}\\s+([0-9.eE+]+)")
              .matcher(client.metrics());
      while (m.find()) {
        out.put(m.group(1), (long) Double.parseDouble(m.group(2)));
      }
    } catch (ApiException e) {
      // The split by tier is a detail; the throughput stands without it.
    }
    return out;
  }

  // ---- helpers ----

  private void row(String what, Samples s, String baseline, Samples b, String goal) {
    rows.add(
        new String[] {
          what,
          Samples.millis(s.p50()),
          Samples.millis(s.p99()),
          baseline,
          Samples.millis(b.p50()),
          Samples.millis(b.p99()),
          Samples.ratio(s.p50(), b.p50()),
          Samples.ratio(s.p99(), b.p99()),
          goal
        });
  }

  private void print(PrintStream out) {
    out.println();
    out.printf(
        Locale.ROOT,
        "kora bench: runtime %s, %d CPUs, %d samples per latency figure%n%n",
        options.runtime(),
        Runtime.getRuntime().availableProcessors(),
        options.iterations());
    String[] header = {
      "measure", "p50", "p99", "baseline", "p50", "p99", "ratio p50", "ratio p99", "goal"
    };
    List<String[]> all = new ArrayList<>();
    all.add(header);
    all.addAll(rows);
    int[] width = new int[header.length];
    for (String[] r : all) {
      for (int i = 0; i < r.length; i++) {
        width[i] = Math.max(width[i], r[i].length());
      }
    }
    for (String[] r : all) {
      StringBuilder line = new StringBuilder();
      for (int i = 0; i < r.length; i++) {
        line.append(r[i]).append(" ".repeat(width[i] - r[i].length() + 2));
      }
      out.println(line.toString().stripTrailing());
    }
    if (!notes.isEmpty()) {
      out.println();
      notes.forEach(n -> out.println("- " + n));
    }
  }

  private void step(String what) {
    progress.println("bench: " + what);
  }

  private static int warm(Info info, PoolKey key) {
    return info.pools().stream()
        .filter(p -> p.key().equals(key))
        .mapToInt(PoolStatus::warm)
        .findFirst()
        .orElse(0);
  }

  private void waitForWarm(PoolKey key, int count, Duration timeout) throws InterruptedException {
    long shown = System.nanoTime();
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      int warm = warm(client.info(), key);
      if (warm >= count) {
        return;
      }
      if (System.nanoTime() - shown > 2_000_000_000L) {
        step("warming " + key + " " + warm + "/" + count);
        shown = System.nanoTime();
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "pool " + key + " did not reach " + count + " warm sandboxes in " + timeout);
      }
      Thread.sleep(20);
    }
  }

  private void waitFor(java.util.function.Predicate<Info> done, Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!done.test(client.info())) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the daemon did not settle in " + timeout);
      }
      Thread.sleep(50);
    }
  }

  private static void deleteTree(Path root) {
    try (Stream<Path> walk = Files.walk(root)) {
      walk.sorted(Comparator.reverseOrder())
          .forEach(
              p -> {
                try {
                  Files.deleteIfExists(p);
                } catch (IOException e) {
                  // Best effort: a temporary directory.
                }
              });
    } catch (IOException e) {
      // Best effort.
    }
  }
}
