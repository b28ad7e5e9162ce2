package dev.runkora.sandboxd;

import dev.runkora.common.json.JsonFields;
import dev.runkora.common.json.JsonFormatError;
import dev.runkora.common.json.JsonText;
import dev.runkora.spi.core.KoraException;
import jakarta.json.JsonValue;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The daemon's configuration: the fields of the sandboxd {@code config.json} (reference §8) that
 * kora implements, plus kora's own keys ({@code runtime}, {@code runtime_settings}, {@code
 * registry}, {@code autoscaler}, {@code storage}, {@code api_token_file}).
 *
 * @param listenHost the address to bind ({@code 0.0.0.0} for {@code :7777})
 * @param listenPort the port to bind; 0 picks a free one
 * @param advertiseAddr {@code host:port} returned as {@code owner_addr}; empty = the listen address
 * @param dataDir where {@code claims.json}, {@code pools.json} and plugin state live
 * @param apiToken the root token; empty with no tenants is open mode
 * @param apiTokenFile a file holding the root token, created (mode 0600, random token) when
 *     missing; used when {@code apiToken} is empty
 * @param tenants tenant tokens and their claim caps
 * @param maxClaims node-wide cap on live claims; 0 = unlimited
 * @param refillConcurrency how many sandboxes are made at once; 0 = auto
 * @param syncClaims whether {@code claims.json} commits are fsynced
 * @param pools the pools of the first boot (a {@code pools.json} overrides them)
 * @param runtime the runtime plugin's name ({@code bwrap} by default; {@code process} only when
 *     chosen)
 * @param runtimeSettings the runtime plugin's settings
 * @param registry how registries are reached
 * @param autoscaler the autoscaler plugin's name
 * @param storage the storage plugin's name, for claim-time workspace mounts; empty = none
 */
public record SandboxdConfig(
    String listenHost,
    int listenPort,
    String advertiseAddr,
    Path dataDir,
    String apiToken,
    Optional<Path> apiTokenFile,
    List<Tenant> tenants,
    int maxClaims,
    int refillConcurrency,
    boolean syncClaims,
    List<Pool> pools,
    String runtime,
    Map<String, String> runtimeSettings,
    Registry registry,
    String autoscaler,
    String storage) {

  /** The upstream default listen port. */
  public static final int DEFAULT_PORT = 7777;

  private static final Set<String> KNOWN =
      Set.of(
          "listen",
          "data_dir",
          "advertise_addr",
          "client_advertise",
          "api_token",
          "tenants",
          "max_claims",
          "refill_concurrency",
          "release_delay_seconds",
          "sync_claims",
          "pools",
          "runtime",
          "runtime_settings",
          "registry",
          "autoscaler",
          "storage",
          "api_token_file");

  /** Upstream keys of the microVM backend: meaningless here, accepted and ignored. */
  private static final Set<String> IGNORED =
      Set.of("cocoon_bin", "restore_mode", "no_direct_io", "no_balloon");

  /** Upstream keys of features kora does not have yet: accepted only when unset or empty. */
  private static final Set<String> UNSUPPORTED =
      Set.of(
          "max_fork_count",
          "bridges",
          "networks",
          "volumes",
          "secrets",
          "egress_internal_allow",
          "egress_ca",
          "preview_listen",
          "preview_secret",
          "preview_advertise",
          "checkpoint_dir",
          "checkpoint_store",
          "checkpoint_ttl_hours",
          "checkpoint_peer_heal",
          "idle_hibernate_seconds",
          "archive_after_seconds",
          "archive_delete_after_seconds",
          "audit_log",
          "mesh");

  /** Checks the values and copies the collections. */
  public SandboxdConfig {
    Objects.requireNonNull(listenHost, "listenHost");
    if (listenPort < 0 || listenPort > 65535) {
      throw KoraException.invalidArgument("listen port %d is not in 0..65535", listenPort);
    }
    Objects.requireNonNull(advertiseAddr, "advertiseAddr");
    Objects.requireNonNull(dataDir, "dataDir");
    Objects.requireNonNull(apiToken, "apiToken");
    Objects.requireNonNull(apiTokenFile, "apiTokenFile");
    tenants = List.copyOf(tenants);
    if (maxClaims < 0) {
      throw KoraException.invalidArgument("max_claims must not be negative");
    }
    if (refillConcurrency < 0) {
      throw KoraException.invalidArgument("refill_concurrency must not be negative");
    }
    pools = List.copyOf(pools);
    Objects.requireNonNull(runtime, "runtime");
    runtimeSettings = Map.copyOf(runtimeSettings);
    Objects.requireNonNull(registry, "registry");
    Objects.requireNonNull(autoscaler, "autoscaler");
    Objects.requireNonNull(storage, "storage");
    if (!tenants.isEmpty() && apiToken.isEmpty() && apiTokenFile.isEmpty()) {
      throw KoraException.invalidArgument("tenants need api_token (or api_token_file)");
    }
    var names = new HashSet<String>();
    var tokens = new HashSet<String>();
    for (Tenant tenant : tenants) {
      if (!names.add(tenant.name())) {
        throw KoraException.invalidArgument("tenant name '%s' is used twice", tenant.name());
      }
      if (!tokens.add(tenant.token()) || tenant.token().equals(apiToken)) {
        throw KoraException.invalidArgument(
            "tenant '%s' has a token that is not unique (tenant tokens differ from each other and"
                + " from api_token)",
            tenant.name());
      }
    }
    var keys = new HashSet<String>();
    for (Pool pool : pools) {
      if (!keys.add(pool.template() + "|" + pool.net() + "|" + pool.size())) {
        throw KoraException.invalidArgument(
            "pool %s|%s|%s is configured twice", pool.template(), pool.net(), pool.size());
      }
    }
  }

  /**
   * Returns the configuration of {@code ./kora up}: {@code 127.0.0.1:7777}, the given data
   * directory, a root token in {@code <dataDir>/root-token}, the {@code host} template warm (4),
   * the {@code bwrap} runtime and the {@code watermark} autoscaler.
   */
  public static SandboxdConfig defaults(Path dataDir) {
    return new SandboxdConfig(
        "127.0.0.1",
        DEFAULT_PORT,
        "",
        dataDir,
        "",
        Optional.of(dataDir.resolve("root-token")),
        List.of(),
        0,
        0,
        false,
        List.of(new Pool("host", "none", "small", 4, 0)),
        "bwrap",
        Map.of(),
        Registry.defaults(),
        "watermark",
        "local");
  }

  /** Returns a copy listening on another address. */
  public SandboxdConfig withListen(String host, int port) {
    return new SandboxdConfig(
        host,
        port,
        advertiseAddr,
        dataDir,
        apiToken,
        apiTokenFile,
        tenants,
        maxClaims,
        refillConcurrency,
        syncClaims,
        pools,
        runtime,
        runtimeSettings,
        registry,
        autoscaler,
        storage);
  }

  /** Returns a copy with another root token file (and no inline token). */
  public SandboxdConfig withApiTokenFile(Path file) {
    return new SandboxdConfig(
        listenHost,
        listenPort,
        advertiseAddr,
        dataDir,
        "",
        Optional.of(file),
        tenants,
        maxClaims,
        refillConcurrency,
        syncClaims,
        pools,
        runtime,
        runtimeSettings,
        registry,
        autoscaler,
        storage);
  }

  /** Returns a copy with other pools. */
  public SandboxdConfig withPools(List<Pool> value) {
    return new SandboxdConfig(
        listenHost,
        listenPort,
        advertiseAddr,
        dataDir,
        apiToken,
        apiTokenFile,
        tenants,
        maxClaims,
        refillConcurrency,
        syncClaims,
        value,
        runtime,
        runtimeSettings,
        registry,
        autoscaler,
        storage);
  }

  /** Returns a copy with another runtime plugin. */
  public SandboxdConfig withRuntime(String name, Map<String, String> settings) {
    return new SandboxdConfig(
        listenHost,
        listenPort,
        advertiseAddr,
        dataDir,
        apiToken,
        apiTokenFile,
        tenants,
        maxClaims,
        refillConcurrency,
        syncClaims,
        pools,
        name,
        settings,
        registry,
        autoscaler,
        storage);
  }

  /** Returns the listen address as {@code host:port}. */
  public String listen() {
    return (listenHost.contains(":") ? "[" + listenHost + "]" : listenHost) + ":" + listenPort;
  }

  /**
   * Loads a sandboxd {@code config.json}. Unknown keys are rejected, naming the file and the key.
   *
   * @throws KoraException {@code NOT_FOUND} when the file does not exist, {@code INVALID_ARGUMENT}
   *     when it is not a valid configuration
   */
  public static SandboxdConfig load(Path file) {
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      throw KoraException.notFound("config file %s does not exist", file);
    } catch (IOException e) {
      throw KoraException.invalidArgument("cannot read config file %s: %s", file, e.getMessage());
    }
    try {
      return parse(JsonFields.of(JsonText.parseObject(bytes)));
    } catch (JsonFormatError | KoraException e) {
      throw KoraException.invalidArgument("config file %s: %s", file, e.getMessage());
    }
  }

  /** Parses the JSON of a {@code config.json}. */
  static SandboxdConfig parse(JsonFields json) {
    var unknown = new TreeSet<String>();
    for (var entry : json.object().entrySet()) {
      String key = entry.getKey();
      if (KNOWN.contains(key) || IGNORED.contains(key)) {
        continue;
      }
      if (UNSUPPORTED.contains(key)) {
        if (!isEmpty(entry.getValue())) {
          throw KoraException.invalidArgument("\"%s\" is not supported by kora-sandboxd", key);
        }
        continue;
      }
      unknown.add(key);
    }
    if (!unknown.isEmpty()) {
      throw KoraException.invalidArgument("unknown key \"%s\"", unknown.first());
    }
    if (!json.string("client_advertise", "").isEmpty()) {
      throw KoraException.invalidArgument("\"client_advertise\" is not supported by kora-sandboxd");
    }
    if (json.longValue("release_delay_seconds", 0) != 0) {
      throw KoraException.invalidArgument(
          "\"release_delay_seconds\" is not supported by kora-sandboxd");
    }
    String listen = json.string("listen", ":" + DEFAULT_PORT);
    var hostPort = parseListen(listen);
    var tenants = new ArrayList<Tenant>();
    for (JsonFields t : json.objects("tenants")) {
      t.requireOnly(Set.of("name", "token", "max_claims", "egress"));
      if (t.bool("egress", false)) {
        throw KoraException.invalidArgument("tenant egress is not supported by kora-sandboxd");
      }
      tenants.add(
          new Tenant(
              t.requiredString("name"), t.requiredString("token"), t.intValue("max_claims", 0)));
    }
    var pools = new ArrayList<Pool>();
    for (JsonFields p : json.objects("pools")) {
      pools.add(Pool.parse(p, true));
    }
    var registry = json.objectField("registry").map(Registry::parse).orElse(Registry.defaults());
    String tokenFile = json.string("api_token_file", "");
    return new SandboxdConfig(
        hostPort.getKey(),
        hostPort.getValue(),
        json.string("advertise_addr", ""),
        Path.of(json.string("data_dir", "/var/lib/sandboxd")),
        json.string("api_token", ""),
        tokenFile.isEmpty() ? Optional.empty() : Optional.of(Path.of(tokenFile)),
        tenants,
        json.intValue("max_claims", 0),
        json.intValue("refill_concurrency", 0),
        json.bool("sync_claims", false),
        pools,
        json.string("runtime", "bwrap"),
        json.stringMap("runtime_settings"),
        registry,
        json.string("autoscaler", "watermark"),
        json.string("storage", "local"));
  }

  private static boolean isEmpty(JsonValue value) {
    return switch (value.getValueType()) {
      case NULL, FALSE -> true;
      case NUMBER -> ((jakarta.json.JsonNumber) value).doubleValue() == 0;
      case STRING -> ((jakarta.json.JsonString) value).getString().isEmpty();
      case ARRAY -> value.asJsonArray().isEmpty();
      case OBJECT -> value.asJsonObject().isEmpty();
      case TRUE -> false;
    };
  }

  /** Splits {@code host:port}, {@code :port} or {@code [v6]:port}. */
  static Map.Entry<String, Integer> parseListen(String listen) {
    int colon = listen.lastIndexOf(':');
    if (colon < 0) {
      throw KoraException.invalidArgument("listen \"%s\" is not host:port", listen);
    }
    String host = listen.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    if (host.isEmpty()) {
      host = "0.0.0.0";
    }
    try {
      int port = Integer.parseInt(listen.substring(colon + 1));
      if (port < 0 || port > 65535) {
        throw new NumberFormatException();
      }
      return Map.entry(host, port);
    } catch (NumberFormatException e) {
      throw KoraException.invalidArgument("listen \"%s\" has no valid port", listen);
    }
  }

  /**
   * A tenant.
   *
   * @param name its name, stamped on what it creates
   * @param token its bearer token
   * @param maxClaims its cap on live claims; 0 = none beyond the node's
   */
  public record Tenant(String name, String token, int maxClaims) {

    /** Checks the values. */
    public Tenant {
      if (name == null || name.isEmpty() || token == null || token.isEmpty()) {
        throw KoraException.invalidArgument("a tenant needs a name and a token");
      }
      if (maxClaims < 0) {
        throw KoraException.invalidArgument("tenant '%s' max_claims is negative", name);
      }
    }
  }

  /**
   * A warm pool.
   *
   * @param template the template (image reference or {@code host})
   * @param net {@code none} or {@code egress}
   * @param size a size tier
   * @param warm the static target and floor
   * @param warmMax the adaptive ceiling; 0 = static
   */
  public record Pool(String template, String net, String size, int warm, int warmMax) {

    /** Checks the counts. */
    public Pool {
      Objects.requireNonNull(template, "template");
      Objects.requireNonNull(net, "net");
      Objects.requireNonNull(size, "size");
      if (warm < 0 || warmMax < 0) {
        throw KoraException.invalidArgument(
            "pool %s: warm and warm_max are not negative", template);
      }
      if (warmMax > 0 && warmMax < warm) {
        throw KoraException.invalidArgument("pool %s: warm_max < warm", template);
      }
    }

    /**
     * Parses a pool entry. In a config file {@code warm} defaults to 4 when both {@code warm} and
     * {@code warm_max} are omitted; in {@code PUT /v1/pools} it is never defaulted.
     */
    public static Pool parse(JsonFields p, boolean fromConfig) {
      var known =
          new HashSet<>(
              Set.of(
                  "template",
                  "net",
                  "size",
                  "warm",
                  "warm_max",
                  "idle_hibernate_seconds",
                  "archive_after_seconds",
                  "archive_delete_after_seconds"));
      if (fromConfig) {
        known.addAll(Set.of("warmup", "egress"));
      }
      p.requireOnly(known);
      if (!p.strings("warmup").isEmpty()) {
        throw KoraException.invalidArgument("pool warmup is not supported by kora-sandboxd");
      }
      if (p.bool("egress", false)) {
        throw KoraException.invalidArgument("pool egress is not supported by kora-sandboxd");
      }
      boolean defaulted = fromConfig && !p.has("warm") && !p.has("warm_max");
      return new Pool(
          p.requiredString("template"),
          p.string("net", "none"),
          p.string("size", "small"),
          defaulted ? 4 : p.intValue("warm", 0),
          p.intValue("warm_max", 0));
    }
  }

  /**
   * How registries are reached from this node, and which registry plugins serve templates.
   *
   * @param mirrors registry host to mirror host
   * @param registryPorts ports besides 443 that registries are read on
   * @param plainHttpHosts registry hosts spoken to over plain HTTP
   * @param plugins the registry plugins to use, by name; empty = every one found (a plugin found
   *     but not named that cannot start without settings is left out, with a warning)
   * @param pluginSettings settings per registry plugin name, such as {@code oci-layout -> path}
   */
  public record Registry(
      Map<String, String> mirrors,
      Set<Integer> registryPorts,
      Set<String> plainHttpHosts,
      List<String> plugins,
      Map<String, Map<String, String>> pluginSettings) {

    /** Copies the collections. */
    public Registry {
      mirrors = Map.copyOf(mirrors);
      registryPorts = Set.copyOf(registryPorts);
      plainHttpHosts = Set.copyOf(plainHttpHosts);
      plugins = List.copyOf(plugins);
      var copy = new LinkedHashMap<String, Map<String, String>>();
      pluginSettings.forEach((k, v) -> copy.put(k, Map.copyOf(v)));
      pluginSettings = Map.copyOf(copy);
    }

    /** Returns settings with no mirrors, no extra ports, no plain-HTTP hosts, every plugin. */
    public static Registry defaults() {
      return new Registry(Map.of(), Set.of(), Set.of(), List.of(), Map.of());
    }

    static Registry parse(JsonFields r) {
      r.requireOnly(Set.of("mirrors", "registry_ports", "plain_http_hosts", "plugins", "settings"));
      var ports = new TreeSet<Integer>();
      for (var value :
          r.object().getOrDefault("registry_ports", JsonValue.EMPTY_JSON_ARRAY).asJsonArray()) {
        if (!(value instanceof jakarta.json.JsonNumber n) || !n.isIntegral()) {
          throw KoraException.invalidArgument("registry.registry_ports holds whole numbers");
        }
        ports.add(n.intValue());
      }
      var settings = new LinkedHashMap<String, Map<String, String>>();
      r.objectField("settings")
          .ifPresent(
              all -> {
                for (String name : all.object().keySet()) {
                  settings.put(name, all.stringMap(name));
                }
              });
      return new Registry(
          new LinkedHashMap<>(r.stringMap("mirrors")),
          ports,
          new TreeSet<>(r.strings("plain_http_hosts")),
          r.strings("plugins"),
          settings);
    }
  }
}
