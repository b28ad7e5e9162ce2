package dev.runkora.sandboxd;

import static org.awaitility.Awaitility.await;

import dev.runkora.common.json.JsonText;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Figures, not assertions: warm claim against {@code /healthz}, cold claim against warm, and exec
 * of {@code true} against spawning {@code true} from Java, on the real runtime named by {@code
 * -Dbench.runtime} (default {@code bwrap}). Run with {@code -Dtest=SandboxdBench}.
 */
class SandboxdBench {

  @TempDir Path temp;

  @Test
  void printFigures() throws Exception {
    String runtime = System.getProperty("bench.runtime", "bwrap");
    int warm = 20;
    // -Dbench.data=/dev/shm puts the state on memory, to tell the claims.json commit from the rest.
    Path data =
        Files.createTempDirectory(
            Path.of(System.getProperty("bench.data", temp.toString())), "data");
    var config =
        SandboxdConfig.defaults(data)
            .withListen("127.0.0.1", 0)
            .withPools(List.of(new SandboxdConfig.Pool("host", "none", "small", warm, 0)))
            .withRuntime(runtime, Map.of());
    var daemon = Sandboxd.start(config);
    try (var http = new RawHttp(daemon.port())) {
      String root = Files.readString(data.resolve("root-token")).strip();
      measure(daemon, http, root, runtime, warm);
    } finally {
      daemon.closeAndDestroy();
      Leftovers.destroy(runtime, Leftovers.stateDir(data, runtime));
    }
  }

  private void measure(Sandboxd daemon, RawHttp http, String root, String runtime, int warm)
      throws Exception {
    {
      await()
          .atMost(Duration.ofMinutes(2))
          .until(() -> daemon.info().pools().getFirst().warm() == warm);
      for (int i = 0; i < 300; i++) {
        http.call("GET", "/healthz", null, null);
      }
      long[] health = new long[500];
      for (int i = 0; i < health.length; i++) {
        long t0 = System.nanoTime();
        http.call("GET", "/healthz", null, null);
        health[i] = System.nanoTime() - t0;
      }
      long[] info = new long[100];
      for (int i = 0; i < info.length; i++) {
        long t0 = System.nanoTime();
        http.call("GET", "/v1/info", root, null);
        info[i] = System.nanoTime() - t0;
      }
      report("info", info, health);
      long[] listing = new long[100];
      for (int i = 0; i < listing.length; i++) {
        long t0 = System.nanoTime();
        http.call("GET", "/v1/sandboxes", root, "{\"x\":1}");
        listing[i] = System.nanoTime() - t0;
      }
      report("list with body", listing, health);
      // The claim path runs about as often as /healthz did before it is measured, so that the JIT
      // has compiled both, as in a daemon that has been up a while: claim and release, not timed.
      int warmups = Integer.getInteger("bench.warmups", 400);
      for (int i = 0; i < warmups; i++) {
        awaitWarm(daemon, 2);
        var json =
            JsonText.parseObject(http.call("POST", "/v1/claim", root, "{\"template\":\"host\"}"));
        http.call("POST", "/v1/sandboxes/" + json.getString("id") + "/release", root, null);
      }
      long[] warmClaims = new long[100];
      String id = null;
      String token = null;
      for (int i = 0; i < warmClaims.length; i++) {
        awaitWarm(daemon, 2);
        long t0 = System.nanoTime();
        var json =
            JsonText.parseObject(http.call("POST", "/v1/claim", root, "{\"template\":\"host\"}"));
        warmClaims[i] = System.nanoTime() - t0;
        if (id != null) {
          http.call("POST", "/v1/sandboxes/" + id + "/release", root, null);
        }
        id = json.getString("id");
        token = json.getString("token");
      }
      // The same, with refills off (target 0 while the stack still holds sandboxes): what a claim
      // costs by itself, without the refill it starts competing for the CPU.
      await()
          .atMost(Duration.ofMinutes(1))
          .until(() -> daemon.info().pools().getFirst().warm() >= 15);
      http.call("PUT", "/v1/pools", root, "{\"pools\":[{\"template\":\"host\",\"warm\":0}]}");
      long[] quietClaims = new long[14];
      for (int i = 0; i < quietClaims.length; i++) {
        long t0 = System.nanoTime();
        http.call("POST", "/v1/claim", root, "{\"template\":\"host\"}");
        quietClaims[i] = System.nanoTime() - t0;
      }
      long[] coldClaims = new long[10];
      for (int i = 0; i < coldClaims.length; i++) {
        long t0 = System.nanoTime();
        http.call("POST", "/v1/claim", root, "{\"template\":\"host\",\"size\":\"medium\"}");
        coldClaims[i] = System.nanoTime() - t0;
      }
      long[] execs = new long[100];
      for (int i = 0; i < execs.length; i++) {
        long t0 = System.nanoTime();
        http.call("POST", "/v1/sandboxes/" + id + "/exec", token, "{\"argv\":[\"true\"]}");
        execs[i] = System.nanoTime() - t0;
      }
      long[] spawns = new long[100];
      for (int i = 0; i < spawns.length; i++) {
        long t0 = System.nanoTime();
        new ProcessBuilder("true").start().waitFor();
        spawns[i] = System.nanoTime() - t0;
      }
      System.out.printf(
          "BENCH runtime=%s load %s", runtime, Files.readString(Path.of("/proc/loadavg")));
      report("healthz", health, null);
      report("warm claim", warmClaims, health);
      report("warm, no refill", quietClaims, health);
      report("cold claim", coldClaims, warmClaims);
      report("exec true", execs, spawns);
      report("java spawn true", spawns, null);
    }
  }

  private static void awaitWarm(Sandboxd daemon, int atLeast) {
    if (daemon.info().pools().getFirst().warm() >= atLeast) {
      return;
    }
    await()
        .pollInterval(Duration.ofMillis(5))
        .atMost(Duration.ofMinutes(1))
        .until(() -> daemon.info().pools().getFirst().warm() >= atLeast);
  }

  private static void report(String name, long[] nanos, long[] baseline) {
    long p50 = percentile(nanos, 50);
    long p99 = percentile(nanos, 99);
    String ratio = "";
    if (baseline != null) {
      ratio =
          "  ratio p50 %.2fx p99 %.2fx"
              .formatted(
                  p50 / (double) percentile(baseline, 50), p99 / (double) percentile(baseline, 99));
    }
    System.out.printf(
        "BENCH %-16s p50 %8.3f ms  p99 %8.3f ms%s%n", name, p50 / 1e6, p99 / 1e6, ratio);
  }

  private static long percentile(long[] values, int p) {
    long[] sorted = values.clone();
    Arrays.sort(sorted);
    return sorted[Math.min(sorted.length - 1, (int) Math.ceil(p / 100.0 * sorted.length) - 1)];
  }
}
