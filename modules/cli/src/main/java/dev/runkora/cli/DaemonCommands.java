package dev.runkora.cli;

import dev.runkora.api.SandboxdClient;
import dev.runkora.common.files.PrivateFiles;
import dev.runkora.sandboxd.Sandboxd;
import dev.runkora.sandboxd.SandboxdConfig;
import dev.runkora.sandboxd.SandboxdInfo;
import dev.runkora.spi.core.KoraException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.Logger;

/** {@code up} and {@code sandboxd}: kora-sandboxd in this process, until Ctrl-C. */
final class DaemonCommands {
  static final Args.Spec SPEC =
      new Args.Spec(
          Set.of("listen", "data-dir", "token-file", "warm", "runtime", "template", "config"),
          Set.of(),
          -1);

  private DaemonCommands() {}

  /** The daemon's configuration from the options ({@code --config} first, options over it). */
  static SandboxdConfig config(Args args, Console console) {
    args.atMostPositionals(0);
    SandboxdConfig config;
    try {
      if (args.value("config").isPresent()) {
        config = SandboxdConfig.load(Path.of(args.value("config").get()));
        if (args.value("data-dir").isPresent()) {
          throw new UsageException("--data-dir and --config do not go together (set data_dir)");
        }
      } else {
        Path dataDir =
            args.value("data-dir").map(Path::of).orElse(Defaults.dataDir(console)).toAbsolutePath();
        config = SandboxdConfig.defaults(dataDir);
      }
      if (args.value("listen").isPresent()) {
        String listen = args.value("listen").get();
        var hostPort = parseListen(listen);
        config = config.withListen(hostPort.getKey(), hostPort.getValue());
      }
      if (args.value("token-file").isPresent()) {
        config = config.withApiTokenFile(Path.of(args.value("token-file").get()).toAbsolutePath());
      }
      if (args.value("warm").isPresent() || args.value("template").isPresent()) {
        int warm = (int) args.number("warm", Defaults.WARM, 0, 10_000);
        String template = args.value("template", Defaults.TEMPLATE);
        config =
            config.withPools(List.of(new SandboxdConfig.Pool(template, "none", "small", warm, 0)));
      }
      if (args.value("runtime").isPresent()) {
        config = config.withRuntime(args.value("runtime").get(), config.runtimeSettings());
      }
    } catch (KoraException e) {
      throw new CliException(e.getMessage(), e);
    }
    return config;
  }

  static Map.Entry<String, Integer> parseListen(String listen) {
    int colon = listen.lastIndexOf(':');
    if (colon < 0) {
      throw new UsageException("--listen needs HOST:PORT, not " + listen);
    }
    String host = listen.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    int port;
    try {
      port = Integer.parseInt(listen.substring(colon + 1));
    } catch (NumberFormatException e) {
      throw new UsageException("--listen needs HOST:PORT, not " + listen);
    }
    if (port < 0 || port > 65535) {
      throw new UsageException("--listen port must be in 0..65535, not " + port);
    }
    return Map.entry(host.isEmpty() ? "0.0.0.0" : host, port);
  }

  /** The URL a client on this machine uses for a daemon bound to {@code host}. */
  static String clientUrl(String host, int port) {
    String h =
        switch (host) {
          case "0.0.0.0", "" -> "127.0.0.1";
          case "::", "::0" -> "[::1]";
          default -> host.contains(":") ? "[" + host + "]" : host;
        };
    return "http://" + h + ":" + port;
  }

  /** {@code up}: the daemon, where everything is, and warming progress. */
  static int up(Args args, Console console) {
    // up prints its own summary: the daemon's logs show warnings only, unless asked for more.
    logLevel(console.env("SANDBOXD_LOG_LEVEL").orElse("warn"));
    SandboxdConfig config = config(args, console);
    Path tokenFile = config.apiTokenFile().orElse(Defaults.tokenFile(config.dataDir()));
    refuseIfRunning(config);
    prepare(config);
    long t0 = System.nanoTime();
    Sandboxd daemon = start(config);
    String url = clientUrl(config.listenHost(), daemon.port());
    Path daemonFile = console.daemonFile();
    long pid = ProcessHandle.current().pid();
    try {
      new DaemonFile(url, tokenFile, config.dataDir(), pid).write(daemonFile);
    } catch (IOException e) {
      daemon.close();
      throw new CliException("cannot write " + daemonFile + ": " + e.getMessage(), e);
    }
    CountDownLatch stopped = stopOnShutdown(daemon, console, daemonFile, pid);
    var out = console.out();
    out.println("kora-sandboxd listening on " + url);
    out.println("  data dir    " + config.dataDir());
    out.println("  root token  " + tokenFile + (config.apiToken().isEmpty() ? "" : " (inline)"));
    out.println("  daemon file " + daemonFile);
    out.println("  runtime     " + config.runtime());
    out.println("  pools       " + describePools(config));
    showWarming(daemon, console, t0);
    out.println("try, in another shell:  ./kora run -- echo hello      (Ctrl-C here stops it)");
    out.flush();
    awaitQuietly(stopped);
    return 0;
  }

  /** {@code sandboxd}: the daemon alone; one line on start, then only its logs. */
  static int sandboxd(Args args, Console console) {
    logLevel(console.env("SANDBOXD_LOG_LEVEL").orElse("info"));
    SandboxdConfig config = config(args, console);
    prepare(config);
    Sandboxd daemon = start(config);
    console
        .err()
        .println("kora-sandboxd listening on " + clientUrl(config.listenHost(), daemon.port()));
    awaitQuietly(stopOnShutdown(daemon, console, null, ProcessHandle.current().pid()));
    return 0;
  }

  /** {@code SANDBOXD_LOG_LEVEL} as the daemon reads it: debug, info, warn or error. */
  static void logLevel(String name) {
    Level level =
        switch (name.toLowerCase(Locale.ROOT)) {
          case "debug" -> Level.FINE;
          case "warn", "warning" -> Level.WARNING;
          case "error" -> Level.SEVERE;
          default -> Level.INFO;
        };
    Logger root = Logger.getLogger("");
    root.setLevel(level);
    for (Handler handler : root.getHandlers()) {
      handler.setLevel(level);
    }
  }

  private static void refuseIfRunning(SandboxdConfig config) {
    if (config.listenPort() == 0) {
      return;
    }
    String url = clientUrl(config.listenHost(), config.listenPort());
    try (SandboxdClient probe =
        SandboxdClient.builder(url)
            .connectTimeout(Duration.ofMillis(500))
            .requestTimeout(Duration.ofSeconds(2))
            .build()) {
      if (probe.isHealthy()) {
        throw new CliException(
            "kora-sandboxd is already running at "
                + url
                + " (stop it first, or pick another --listen)");
      }
    }
  }

  private static void prepare(SandboxdConfig config) {
    try {
      PrivateFiles.directory(config.dataDir());
      if (config.apiTokenFile().isPresent()) {
        Path parent = config.apiTokenFile().get().toAbsolutePath().getParent();
        if (parent != null && !Files.isDirectory(parent)) {
          PrivateFiles.directory(parent);
        }
      }
    } catch (IOException e) {
      throw new CliException("cannot create " + config.dataDir() + ": " + e.getMessage(), e);
    }
  }

  private static Sandboxd start(SandboxdConfig config) {
    try {
      return Sandboxd.start(config);
    } catch (RuntimeException e) {
      // KoraException carries a message meant for people (an address in use among them).
      throw new CliException("kora-sandboxd did not start: " + e.getMessage(), e);
    }
  }

  private static CountDownLatch stopOnShutdown(
      Sandboxd daemon, Console console, Path daemonFile, long pid) {
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  console.err().println("kora-sandboxd: stopping");
                  try {
                    daemon.close();
                  } finally {
                    if (daemonFile != null) {
                      DaemonFile.removeIfOurs(daemonFile, pid);
                    }
                    stopped.countDown();
                  }
                },
                "kora-sandboxd-stop"));
    return stopped;
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static String describePools(SandboxdConfig config) {
    if (config.pools().isEmpty()) {
      return "none";
    }
    StringBuilder b = new StringBuilder();
    for (SandboxdConfig.Pool p : config.pools()) {
      if (!b.isEmpty()) {
        b.append(", ");
      }
      b.append(p.template())
          .append('/')
          .append(p.net())
          .append('/')
          .append(p.size())
          .append(" warm ")
          .append(p.warm());
    }
    return b.toString();
  }

  /**
   * Prints a line each time a pool's warm count changes, until every pool is warm. A pool that
   * fails to provision is reported once with its error; the daemon keeps retrying in the back.
   */
  static void showWarming(Sandboxd daemon, Console console, long t0) {
    Map<String, String> shown = new HashMap<>();
    Map<String, String> errors = new HashMap<>();
    while (true) {
      SandboxdInfo info = daemon.info();
      for (SandboxdInfo.PoolStatus p : info.pools()) {
        String key = p.template() + "/" + p.net() + "/" + p.size();
        String line = "warming " + key + " " + p.warm() + "/" + p.target();
        if (!line.equals(shown.get(key))) {
          shown.put(key, line);
          console.out().println(line);
        }
        if (!p.lastError().isEmpty() && !p.lastError().equals(errors.get(key))) {
          errors.put(key, p.lastError());
          console.err().println("warming " + key + " failed: " + p.lastError());
        }
      }
      if (info.warm()) {
        console.out().printf(Locale.ROOT, "ready in %.1f s%n", (System.nanoTime() - t0) / 1e9);
        return;
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }
}
