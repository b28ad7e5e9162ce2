package dev.runkora.vk;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The configuration of vk-sandbox: the flags and environment variables of seed 001 and the
 * reference (same names, same defaults), plus kora's additions. A flag beats its variable; there is
 * no configuration file.
 *
 * @param nodeName {@code --node-name} / {@code VK_NODE_NAME}
 * @param nodeIp {@code --node-ip} / {@code VK_NODE_IP}; empty leaves InternalIP out
 * @param listenHost host part of {@code --listen-addr} / {@code VK_LISTEN_ADDR}; empty = every
 *     address
 * @param listenPort port of {@code --listen-addr}, 1–65535
 * @param tlsCert {@code --tls-cert} / {@code VK_TLS_CERT}; empty for none
 * @param tlsKey {@code --tls-key} / {@code VK_TLS_KEY}; empty for none
 * @param nodeCpu {@code --node-cpu} / {@code VK_NODE_CPU}, a Kubernetes quantity
 * @param nodeMemory {@code --node-memory} / {@code VK_NODE_MEMORY}
 * @param nodePods {@code --node-pods} / {@code VK_NODE_PODS}
 * @param kubeApiQps {@code --kube-api-qps}
 * @param kubeApiBurst {@code --kube-api-burst}
 * @param sandboxdUrl {@code --sandboxd-url} / {@code SANDBOXD_URL}
 * @param sandboxdAdvertiseAddr {@code --sandboxd-advertise-addr} / {@code SANDBOXD_ADVERTISE_ADDR};
 *     defaults to the {@code host:port} of the URL
 * @param sandboxdTokenFile {@code --sandboxd-token-file} / {@code SANDBOXD_TOKEN_FILE}; empty for
 *     none
 * @param statePath {@code --state-path} / {@code VK_STATE_PATH}
 * @param orphanScanInterval {@code --orphan-scan-interval}; zero disables the scan
 * @param publishInventory {@code --publish-inventory}
 * @param publishInterval {@code --publish-interval}
 * @param nodeLabels the Node's extra labels: the default merged with {@code --node-labels}
 * @param disablePodEvents {@code --disable-pod-events}
 * @param inventoryGroup kora: {@code --inventory-group}, the NodeInventory API group
 * @param clientCaFile kora: {@code --client-ca-file} / {@code VK_CLIENT_CA_FILE}; the CA whose
 *     client certificates may call the kubelet API; empty = the API server's CA
 * @param anonymousAuth kora: {@code --anonymous-auth}; serve the kubelet API without authentication
 *     (upstream's behaviour)
 */
public record VkConfig(
    String nodeName,
    String nodeIp,
    String listenHost,
    int listenPort,
    String tlsCert,
    String tlsKey,
    String nodeCpu,
    String nodeMemory,
    String nodePods,
    double kubeApiQps,
    int kubeApiBurst,
    String sandboxdUrl,
    String sandboxdAdvertiseAddr,
    String sandboxdTokenFile,
    Path statePath,
    Duration orphanScanInterval,
    boolean publishInventory,
    Duration publishInterval,
    Map<String, String> nodeLabels,
    boolean disablePodEvents,
    String inventoryGroup,
    String clientCaFile,
    boolean anonymousAuth,
    boolean renewLeases) {

  /** The NodeInventory group of seed 001 (the default). */
  public static final String INVENTORY_GROUP = "sandbox.cocoonstack.io";

  /** The NodeInventory group of the pinned upstream revision, selectable by flag. */
  public static final String UPSTREAM_INVENTORY_GROUP = "extensions.agents.x-k8s.io";

  /** The label every sandboxd node carries, and the Pods' node selector. */
  public static final String RUNTIME_LABEL = "sandbox.cocoonstack.io/runtime";

  /** A configuration that is wrong, with a message that says what to do. */
  public static final class Invalid extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    Invalid(String message) {
      super(message);
    }
  }

  /** One flag: its name, its variable (or null), its default, and whether it takes no value. */
  private record Flag(String name, String env, String defaultValue, boolean bool, String help) {}

  private static final List<Flag> FLAGS =
      List.of(
          new Flag(
              "node-name",
              "VK_NODE_NAME",
              "vk-sandboxd",
              false,
              "virtual node name; must differ from the physical node and any vk-cocoon node"),
          new Flag("node-ip", "VK_NODE_IP", "", false, "node InternalIP (omitted when empty)"),
          new Flag("listen-addr", "VK_LISTEN_ADDR", ":10260", false, "kubelet API address (TLS)"),
          new Flag(
              "tls-cert",
              "VK_TLS_CERT",
              "",
              false,
              "kubelet serving certificate; with --tls-key, else an in-memory self-signed one"),
          new Flag("tls-key", "VK_TLS_KEY", "", false, "key of --tls-cert"),
          new Flag("node-cpu", "VK_NODE_CPU", "4000", false, "node cpu capacity (a quantity)"),
          new Flag("node-memory", "VK_NODE_MEMORY", "8Ti", false, "node memory capacity"),
          new Flag("node-pods", "VK_NODE_PODS", "2000", false, "node pod capacity"),
          new Flag("kube-api-qps", null, "200", false, "Kubernetes client QPS"),
          new Flag("kube-api-burst", null, "400", false, "Kubernetes client burst"),
          new Flag("sandboxd-url", "SANDBOXD_URL", "http://127.0.0.1:7777", false, "sandboxd"),
          new Flag(
              "sandboxd-advertise-addr",
              "SANDBOXD_ADVERTISE_ADDR",
              "",
              false,
              "host:port published as NodeInventory.address (default: that of --sandboxd-url)"),
          new Flag(
              "sandboxd-token-file",
              "SANDBOXD_TOKEN_FILE",
              "",
              false,
              "file holding the sandboxd node token (read once at start)"),
          new Flag(
              "state-path",
              "VK_STATE_PATH",
              "/var/lib/vk-sandbox/claims.json",
              false,
              "claims state file (release credentials; 0600)"),
          new Flag("orphan-scan-interval", null, "60s", false, "orphan audit period; 0 disables"),
          new Flag("publish-inventory", null, "false", true, "publish a NodeInventory object"),
          new Flag("publish-interval", null, "30s", false, "NodeInventory publish period"),
          new Flag(
              "node-labels",
              null,
              RUNTIME_LABEL + "=sandboxd",
              false,
              "comma list of k=v merged over the defaults"),
          new Flag("disable-pod-events", null, "false", true, "drop Normal pod events"),
          new Flag(
              "inventory-group",
              null,
              INVENTORY_GROUP,
              false,
              "NodeInventory API group: "
                  + INVENTORY_GROUP
                  + " or upstream's "
                  + UPSTREAM_INVENTORY_GROUP),
          new Flag(
              "client-ca-file",
              "VK_CLIENT_CA_FILE",
              "",
              false,
              "CA of client certificates allowed on the kubelet API (default: the API server's CA)"),
          new Flag(
              "anonymous-auth",
              null,
              "false",
              true,
              "serve the kubelet API without authenticating callers (upstream's behaviour)"),
          new Flag(
              "renew-leases",
              null,
              "false",
              true,
              "renew a live Pod's sandbox lease before it ends (upstream lets it end)"),
          new Flag("version", null, "false", true, "print the version and exit"),
          new Flag("help", null, "false", true, "print this help and exit"));

  /** Normalizes and checks. */
  public VkConfig {
    Objects.requireNonNull(statePath, "statePath");
    nodeLabels = Map.copyOf(nodeLabels);
  }

  /** The label set of the Node: the forced ones plus {@link #nodeLabels()}. */
  public Map<String, String> allNodeLabels() {
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put("kubernetes.io/role", "agent");
    labels.put("kubernetes.io/hostname", nodeName);
    labels.putAll(nodeLabels);
    labels.put("type", "virtual-kubelet");
    return labels;
  }

  /** The help text. */
  public static String help() {
    StringBuilder b =
        new StringBuilder("usage: vk-sandbox [flags]\n\nflags (a flag beats its variable):\n");
    for (Flag f : FLAGS) {
      b.append(String.format(Locale.ROOT, "  --%-26s %s", f.name(), f.help()));
      if (!f.bool() && !f.defaultValue().isEmpty()) {
        b.append(" (default ").append(f.defaultValue()).append(')');
      }
      if (f.env() != null) {
        b.append(" [$").append(f.env()).append(']');
      }
      b.append('\n');
    }
    return b.toString();
  }

  /** What the command line asked for besides a configuration. */
  public enum Action {
    /** Run the agent. */
    RUN,
    /** Print the version. */
    VERSION,
    /** Print the help. */
    HELP
  }

  /**
   * Reads the command line's action without validating the rest, so that {@code --version} works
   * with any environment.
   */
  public static Action action(List<String> args) {
    Map<String, String> given = flags(args);
    if (isTrue(given.get("help"), "help")) {
      return Action.HELP;
    }
    if (isTrue(given.get("version"), "version")) {
      return Action.VERSION;
    }
    return Action.RUN;
  }

  /**
   * Parses a command line and an environment.
   *
   * @throws Invalid for an unknown flag or a bad value, naming the flag and what to do
   */
  public static VkConfig parse(List<String> args, Map<String, String> env) {
    Map<String, String> given = flags(args);
    Map<String, String> v = new LinkedHashMap<>();
    for (Flag f : FLAGS) {
      String value = given.get(f.name());
      if (value == null && f.env() != null) {
        value = env.get(f.env());
      }
      v.put(f.name(), value == null ? f.defaultValue() : value.strip());
    }
    String nodeName = v.get("node-name");
    if (nodeName.isEmpty()) {
      throw new Invalid("--node-name (VK_NODE_NAME) is empty: name the virtual node");
    }
    String nodeIp = v.get("node-ip");
    if (!nodeIp.isEmpty() && !isIp(nodeIp)) {
      throw new Invalid("--node-ip (VK_NODE_IP) is not an IP address: " + nodeIp);
    }
    String listen = v.get("listen-addr");
    int colon = listen.lastIndexOf(':');
    if (colon < 0) {
      throw new Invalid("--listen-addr (VK_LISTEN_ADDR) must be host:port or :port, not " + listen);
    }
    String listenHost = listen.substring(0, colon);
    if (listenHost.startsWith("[") && listenHost.endsWith("]")) {
      listenHost = listenHost.substring(1, listenHost.length() - 1);
    }
    int port;
    try {
      port = Integer.parseInt(listen.substring(colon + 1));
    } catch (NumberFormatException e) {
      port = -1;
    }
    if (port < 1 || port > 65535) {
      throw new Invalid(
          "--listen-addr (VK_LISTEN_ADDR) port must be 1-65535, not "
              + listen.substring(colon + 1));
    }
    for (String q : List.of("node-cpu", "node-memory", "node-pods")) {
      checkQuantity(q, v.get(q));
    }
    double qps = parseDouble("kube-api-qps", v.get("kube-api-qps"));
    int burst = (int) parseDouble("kube-api-burst", v.get("kube-api-burst"));
    if (qps <= 0 || burst <= 0) {
      throw new Invalid("--kube-api-qps and --kube-api-burst must be positive");
    }
    String url = v.get("sandboxd-url");
    URI uri;
    try {
      uri = URI.create(url.contains("://") ? url : "http://" + url);
    } catch (IllegalArgumentException e) {
      throw new Invalid("--sandboxd-url (SANDBOXD_URL) is not a URL: " + url);
    }
    if (uri.getHost() == null) {
      throw new Invalid("--sandboxd-url (SANDBOXD_URL) has no host: " + url);
    }
    String advertise = v.get("sandboxd-advertise-addr");
    if (advertise.isEmpty()) {
      int p = uri.getPort() > 0 ? uri.getPort() : ("https".equals(uri.getScheme()) ? 443 : 80);
      advertise = uri.getHost() + ":" + p;
    }
    String state = v.get("state-path");
    if (state.isEmpty()) {
      throw new Invalid(
          "--state-path (VK_STATE_PATH) is empty: vk-sandbox keeps the release credentials of its"
              + " claims there; set it to a file in a directory this user can write, for example"
              + " /var/lib/vk-sandbox/claims.json");
    }
    Duration orphan = parseDuration("orphan-scan-interval", v.get("orphan-scan-interval"));
    Duration publish = parseDuration("publish-interval", v.get("publish-interval"));
    if (publish.isZero()) {
      throw new Invalid("--publish-interval must be positive");
    }
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put(RUNTIME_LABEL, "sandboxd");
    labels.putAll(parseLabels(v.get("node-labels")));
    String group = v.get("inventory-group");
    if (!group.equals(INVENTORY_GROUP) && !group.equals(UPSTREAM_INVENTORY_GROUP)) {
      throw new Invalid(
          "--inventory-group must be "
              + INVENTORY_GROUP
              + " or "
              + UPSTREAM_INVENTORY_GROUP
              + ", not "
              + group);
    }
    return new VkConfig(
        nodeName,
        nodeIp,
        listenHost,
        port,
        v.get("tls-cert"),
        v.get("tls-key"),
        v.get("node-cpu"),
        v.get("node-memory"),
        v.get("node-pods"),
        qps,
        burst,
        url,
        advertise,
        v.get("sandboxd-token-file"),
        Path.of(state),
        orphan,
        isTrue(v.get("publish-inventory"), "publish-inventory"),
        publish,
        labels,
        isTrue(v.get("disable-pod-events"), "disable-pod-events"),
        group,
        v.get("client-ca-file"),
        isTrue(v.get("anonymous-auth"), "anonymous-auth"),
        isTrue(v.get("renew-leases"), "renew-leases"));
  }

  /** Go-style flags: {@code --name=value}, {@code --name value}, one or two dashes. */
  private static Map<String, String> flags(List<String> args) {
    Map<String, String> given = new LinkedHashMap<>();
    for (int i = 0; i < args.size(); i++) {
      String arg = args.get(i);
      if (!arg.startsWith("-") || arg.equals("-") || arg.equals("--")) {
        throw new Invalid("unexpected argument " + arg + " (vk-sandbox takes flags only; --help)");
      }
      String body = arg.startsWith("--") ? arg.substring(2) : arg.substring(1);
      String name = body;
      String value = null;
      int eq = body.indexOf('=');
      if (eq >= 0) {
        name = body.substring(0, eq);
        value = body.substring(eq + 1);
      }
      Flag flag = find(name);
      if (value == null) {
        if (flag.bool()) {
          value = "true";
        } else if (i + 1 < args.size()) {
          value = args.get(++i);
        } else {
          throw new Invalid("flag --" + name + " needs a value");
        }
      }
      given.put(name, value);
    }
    return given;
  }

  private static Flag find(String name) {
    for (Flag f : FLAGS) {
      if (f.name().equals(name)) {
        return f;
      }
    }
    throw new Invalid("unknown flag --" + name + " (see --help)");
  }

  private static boolean isTrue(String value, String flag) {
    if (value == null) {
      return false;
    }
    return switch (value.toLowerCase(Locale.ROOT)) {
      case "true", "1", "t" -> true;
      case "false", "0", "f", "" -> false;
      default -> throw new Invalid("--" + flag + " takes true or false, not " + value);
    };
  }

  private static double parseDouble(String flag, String value) {
    try {
      return Double.parseDouble(value);
    } catch (NumberFormatException e) {
      throw new Invalid("--" + flag + " must be a number, not " + value);
    }
  }

  private static final Pattern QUANTITY =
      Pattern.compile("[0-9]+(\\.[0-9]+)?([numkMGTPE]|Ki|Mi|Gi|Ti|Pi|Ei|[eE][0-9]+)?");

  private static void checkQuantity(String flag, String value) {
    if (!QUANTITY.matcher(value).matches()) {
      throw new Invalid(
          "--" + flag + " must be a Kubernetes quantity such as 4000 or 8Ti, not " + value);
    }
    if (value.matches("0+(\\.0+)?[^0-9]*")) {
      throw new Invalid(
          "--" + flag + " must not be zero: without a budget the scheduler rejects every Pod");
    }
  }

  private static final Pattern DURATION_PART =
      Pattern.compile("([0-9]+(?:\\.[0-9]+)?)(ns|us|µs|ms|s|m|h)");

  /** A Go duration: {@code 0}, {@code 60s}, {@code 1m30s}, {@code 500ms}. */
  static Duration parseDuration(String flag, String value) {
    if (value.equals("0")) {
      return Duration.ZERO;
    }
    Matcher m = DURATION_PART.matcher(value);
    int at = 0;
    double nanos = 0;
    while (at < value.length() && m.find(at) && m.start() == at) {
      double n = Double.parseDouble(m.group(1));
      nanos +=
          n
              * switch (m.group(2)) {
                case "ns" -> 1;
                case "us", "µs" -> 1e3;
                case "ms" -> 1e6;
                case "s" -> 1e9;
                case "m" -> 60e9;
                default -> 3600e9;
              };
      at = m.end();
    }
    if (at == 0 || at != value.length()) {
      throw new Invalid("--" + flag + " must be a duration such as 60s, 1m30s or 0, not " + value);
    }
    return Duration.ofNanos((long) nanos);
  }

  static Map<String, String> parseLabels(String list) {
    Map<String, String> labels = new LinkedHashMap<>();
    List<String> bad = new ArrayList<>();
    for (String item : list.split(",")) {
      String kv = item.strip();
      if (kv.isEmpty()) {
        continue;
      }
      int eq = kv.indexOf('=');
      if (eq <= 0) {
        bad.add(kv);
        continue;
      }
      labels.put(kv.substring(0, eq).strip(), kv.substring(eq + 1).strip());
    }
    if (!bad.isEmpty()) {
      throw new Invalid(
          "--node-labels takes a comma list of key=value, not " + String.join(",", bad));
    }
    return labels;
  }

  static boolean isIp(String s) {
    if (s.matches("[0-9]{1,3}(\\.[0-9]{1,3}){3}")) {
      for (String part : s.split("\\.")) {
        if (Integer.parseInt(part) > 255) {
          return false;
        }
      }
      return true;
    }
    return s.contains(":") && s.matches("[0-9a-fA-F:.]+");
  }
}
