package dev.runkora.sandboxd;

import dev.runkora.common.files.PrivateFiles;
import dev.runkora.sandboxd.engine.Admission;
import dev.runkora.sandboxd.engine.ClaimStore;
import dev.runkora.sandboxd.engine.Claims;
import dev.runkora.sandboxd.engine.Ids;
import dev.runkora.sandboxd.engine.Metrics;
import dev.runkora.sandboxd.engine.PoolManager;
import dev.runkora.sandboxd.engine.PoolsFile;
import dev.runkora.sandboxd.engine.Provisioner;
import dev.runkora.sandboxd.engine.Reaper;
import dev.runkora.sandboxd.engine.Reconciler;
import dev.runkora.sandboxd.engine.TemplateResolver;
import dev.runkora.sandboxd.http.ApiRoutes;
import dev.runkora.sandboxd.http.Auth;
import dev.runkora.sandboxd.http.Node;
import dev.runkora.sandboxd.plugins.PluginLoader;
import dev.runkora.sandboxd.plugins.PluginSet;
import dev.runkora.spi.core.KoraException;
import io.helidon.webserver.WebServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * A running kora-sandboxd: the HTTP server, the warm pools, the reaper and the plugins. Started by
 * {@link #start(SandboxdConfig)} (embedded, as {@code ./kora up} does) or by {@link #main} (a
 * process of its own).
 */
public final class Sandboxd implements AutoCloseable {

  private static final System.Logger LOG = System.getLogger(Sandboxd.class.getName());

  /** The daemon's version, printed by {@code -version}. */
  public static final String VERSION = "0.1.0";

  private final SandboxdConfig config;
  private final PluginSet plugins;
  private final ClaimStore store;
  private final PoolManager pools;
  private final Reaper reaper;
  private final WebServer server;
  private final Admission admission;
  private final Claims claims;
  private final Provisioner provisioner;
  private final String rootToken;
  private volatile boolean closed;

  private Sandboxd(
      SandboxdConfig config,
      PluginSet plugins,
      ClaimStore store,
      PoolManager pools,
      Reaper reaper,
      WebServer server,
      Admission admission,
      Claims claims,
      Provisioner provisioner,
      String rootToken) {
    this.config = config;
    this.plugins = plugins;
    this.store = store;
    this.pools = pools;
    this.reaper = reaper;
    this.server = server;
    this.admission = admission;
    this.claims = claims;
    this.provisioner = provisioner;
    this.rootToken = rootToken;
  }

  /**
   * Starts a daemon with the plugins its configuration names, found on the module path.
   *
   * @throws KoraException when a plugin is missing, a state file is malformed or the runtime cannot
   *     list its sandboxes; nothing keeps running then
   */
  public static Sandboxd start(SandboxdConfig config) {
    prepare(config);
    return start(config, PluginLoader.load(config));
  }

  /**
   * Starts a daemon on given plugins (tests give fakes). The plugins are closed with the daemon, or
   * at once when start-up fails.
   */
  public static Sandboxd start(SandboxdConfig config, PluginSet plugins) {
    try {
      prepare(config);
      String rootToken = rootToken(config);
      var store = ClaimStore.load(config.dataDir(), config.syncClaims());
      var poolsFile = new PoolsFile(config.dataDir());
      var desiredPools = poolsFile.load().orElse(config.pools());
      var tenantCaps =
          config.tenants().stream()
              .collect(
                  Collectors.toMap(SandboxdConfig.Tenant::name, SandboxdConfig.Tenant::maxClaims));
      var admission = new Admission(config.maxClaims(), tenantCaps);
      String reconciled = Reconciler.reconcile(store, plugins.runtime(), admission);
      LOG.log(System.Logger.Level.INFO, "reconciled {0}: {1}", store.file(), reconciled);
      var provisioner =
          new Provisioner(
              plugins.runtime(),
              new TemplateResolver(plugins.registries()),
              PoolManager.concurrency(config.refillConcurrency()));
      if (!provisioner.unenforced().isEmpty()) {
        LOG.log(
            System.Logger.Level.WARNING,
            "runtime {0} does not enforce {1}: size tiers and net none are not guaranteed",
            config.runtime(),
            provisioner.unenforced());
      }
      var metrics = new Metrics();
      var pools = new PoolManager(provisioner, plugins.autoscaler(), InstantSource.system());
      pools.configure(desiredPools);
      var claims =
          new Claims(
              store,
              admission,
              pools,
              provisioner,
              plugins.storage(),
              metrics,
              InstantSource.system());
      var advertise = new Advertise(config);
      var node =
          new Node(
              new Auth(rootToken, config.tenants()),
              store,
              claims,
              pools,
              admission,
              provisioner,
              metrics,
              poolsFile,
              advertise::ownerAddr);
      WebServer server =
          WebServer.builder()
              .host(config.listenHost())
              .port(config.listenPort())
              .shutdownGracePeriod(Duration.ofSeconds(5))
              // Small JSON answers must not wait for Nagle's algorithm and delayed ACKs.
              .connectionOptions(socket -> socket.tcpNoDelay(true))
              .routing(routing -> ApiRoutes.register(routing, node))
              .build()
              .start();
      if (server.port() < 0) {
        // Helidon logs a failed bind and returns a server that listens nowhere.
        server.stop();
        pools.close();
        store.close();
        throw KoraException.unavailable(
            "cannot listen on %s: the address is in use or not this host's;"
                + " choose another listen address",
            config.listen());
      }
      advertise.port = server.port();
      pools.start();
      var reaper = new Reaper(claims);
      LOG.log(
          System.Logger.Level.INFO,
          "kora-sandboxd {0} listening on {1}:{2,number,#}, data in {3}",
          VERSION,
          config.listenHost(),
          server.port(),
          config.dataDir());
      return new Sandboxd(
          config, plugins, store, pools, reaper, server, admission, claims, provisioner, rootToken);
    } catch (RuntimeException e) {
      plugins.close();
      throw e;
    }
  }

  private static void prepare(SandboxdConfig config) {
    try {
      PrivateFiles.directory(config.dataDir());
    } catch (IOException e) {
      throw KoraException.unavailable(
          "cannot use data directory %s: %s", config.dataDir(), e.getMessage());
    }
  }

  private static String rootToken(SandboxdConfig config) {
    if (!config.apiToken().isEmpty() || config.apiTokenFile().isEmpty()) {
      return config.apiToken();
    }
    Path file = config.apiTokenFile().get();
    try {
      if (Files.exists(file)) {
        String token = Files.readString(file, StandardCharsets.UTF_8).trim();
        if (token.isEmpty()) {
          throw KoraException.invalidArgument("root token file %s is empty", file);
        }
        return token;
      }
      if (file.toAbsolutePath().getParent() != null) {
        PrivateFiles.directory(file.toAbsolutePath().getParent());
      }
      String token = Ids.token() + Ids.token();
      PrivateFiles.writeSecret(file, token + "\n");
      LOG.log(System.Logger.Level.INFO, "wrote a new root token to {0}", file);
      return token;
    } catch (IOException e) {
      throw KoraException.unavailable("cannot use root token file %s: %s", file, e.getMessage());
    }
  }

  /** Computes {@code owner_addr} once the bound port is known. */
  private static final class Advertise {
    private final SandboxdConfig config;
    volatile int port;

    Advertise(SandboxdConfig config) {
      this.config = config;
    }

    Optional<String> ownerAddr() {
      if (!config.advertiseAddr().isEmpty()) {
        return Optional.of(config.advertiseAddr());
      }
      String host = config.listenHost();
      if (host.isEmpty() || host.equals("0.0.0.0") || host.equals("::")) {
        return Optional.empty();
      }
      return Optional.of((host.contains(":") ? "[" + host + "]" : host) + ":" + port);
    }
  }

  /** Returns the bound port. */
  public int port() {
    return server.port();
  }

  /** Returns the root token in force ("" in open mode). */
  public String rootToken() {
    return rootToken;
  }

  /** Returns the configuration the daemon runs with. */
  public SandboxdConfig config() {
    return config;
  }

  /** Returns how many sandboxes have an output log (tests check that a release drops it). */
  int logCount() {
    return provisioner.logs().size();
  }

  /** Returns a snapshot of the pools and claims, for progress displays. */
  public SandboxdInfo info() {
    var views =
        pools.view().stream()
            .map(
                v ->
                    new SandboxdInfo.PoolStatus(
                        v.key().template(),
                        v.key().net(),
                        v.key().size(),
                        v.warm(),
                        v.target(),
                        v.refilling(),
                        v.lastError()))
            .toList();
    return new SandboxdInfo(views, store.size(), admission.draining());
  }

  /**
   * Stops serving: the server (5 s grace), refills and the reaper; destroys warm sandboxes and
   * leaves claimed ones running for the next start to adopt. Idempotent.
   */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    server.stop();
    reaper.close();
    pools.close();
    store.close();
    plugins.close();
  }

  /**
   * Stops like {@link #close} and also releases every claim and destroys its sandbox, and any other
   * sandbox of the daemon's the runtime still lists (a refill that failed to clean up), so that
   * nothing of this daemon outlives it: for embedded daemons that own their sandboxes, such as
   * tests and throw-away runs. A no-op on a daemon already closed.
   *
   * @return how many claimed sandboxes were destroyed
   */
  public synchronized int closeAndDestroy() {
    if (closed) {
      return 0;
    }
    closed = true;
    server.stop();
    reaper.close();
    pools.close();
    int released = claims.releaseAll();
    try {
      var strays =
          plugins.runtime().list().stream()
              .map(dev.runkora.spi.runtime.SandboxInfo::name)
              .filter(name -> name.startsWith(Ids.VM_PREFIX))
              .toList();
      try (var workers = java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor()) {
        for (String name : strays) {
          workers.execute(() -> provisioner.destroy(name));
        }
      }
    } catch (KoraException e) {
      LOG.log(System.Logger.Level.WARNING, "cannot list the runtime's sandboxes at shutdown", e);
    } finally {
      store.close();
      plugins.close();
    }
    LOG.log(System.Logger.Level.INFO, "stopped and destroyed {0} claimed sandbox(es)", released);
    return released;
  }

  /**
   * Runs the daemon as a process: {@code -config <path>} (default {@code
   * /etc/sandboxd/config.json}) or {@code -version}.
   */
  public static void main(String[] args) throws InterruptedException {
    Path configFile = Path.of("/etc/sandboxd/config.json");
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "-version", "--version" -> {
          System.out.println("kora-sandboxd " + VERSION);
          return;
        }
        case "-config", "--config" -> {
          if (i + 1 >= args.length) {
            usage("-config needs a path");
          }
          configFile = Path.of(args[++i]);
        }
        default -> usage("unknown argument " + args[i]);
      }
    }
    logLevel(System.getenv().getOrDefault("SANDBOXD_LOG_LEVEL", "info"));
    Sandboxd daemon;
    try {
      daemon = start(SandboxdConfig.load(configFile));
    } catch (KoraException e) {
      System.err.println("kora-sandboxd: " + e.getMessage());
      System.exit(1);
      return;
    }
    Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().unstarted(daemon::close));
    Thread.currentThread().join();
  }

  /**
   * Applies {@code SANDBOXD_LOG_LEVEL} ({@code debug}, {@code info}, {@code warn}, {@code error}).
   */
  private static void logLevel(String name) {
    var level =
        switch (name.toLowerCase(java.util.Locale.ROOT)) {
          case "debug" -> java.util.logging.Level.FINE;
          case "warn", "warning" -> java.util.logging.Level.WARNING;
          case "error" -> java.util.logging.Level.SEVERE;
          default -> java.util.logging.Level.INFO;
        };
    var root = java.util.logging.Logger.getLogger("");
    root.setLevel(level);
    for (var handler : root.getHandlers()) {
      handler.setLevel(level);
    }
  }

  private static void usage(String problem) {
    System.err.println("kora-sandboxd: " + problem);
    System.err.println("usage: kora-sandboxd [-config <path>] [-version]");
    System.exit(2);
  }
}
