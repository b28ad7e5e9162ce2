package dev.runkora.vk;

import dev.runkora.api.SandboxdClient;
import io.kubernetes.client.custom.V1Patch;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.JSON;
import io.kubernetes.client.openapi.apis.CustomObjectsApi;
import io.kubernetes.client.util.ClientBuilder;
import io.kubernetes.client.util.KubeConfig;
import io.kubernetes.client.util.PatchUtils;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A running vk-sandbox: the claims table and its loops, the Node and its Lease, the pod controller,
 * the kubelet API and, when asked for, the NodeInventory publisher.
 */
public final class VkSandbox implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(VkSandbox.class.getName());
  private static final Path SERVICE_ACCOUNT =
      Path.of("/var/run/secrets/kubernetes.io/serviceaccount");

  private final VkConfig config;
  private final CountDownLatch stopped = new CountDownLatch(1);
  private final ScheduledExecutorService loops =
      Executors.newScheduledThreadPool(
          2, Thread.ofPlatform().name("vk-loop-", 0).daemon().factory());
  private final SandboxdClient sandboxdClient;
  private final SandboxdPort sandboxd;
  private final ApiClient client;
  private final SandboxPods pods;
  private final PodController podController;
  private final NodeController node;
  private final KubeletServer kubelet;
  private final RateLimiter limiter;

  /** The Kubernetes credentials: a client, one for watches, and the API server's CA. */
  record Kube(ApiClient client, ApiClient watchClient, List<X509Certificate> ca) {}

  private VkSandbox(VkConfig config, Kube kube) throws IOException, GeneralSecurityException {
    this.config = config;
    this.client = kube.client();
    this.limiter = new RateLimiter(config.kubeApiQps(), config.kubeApiBurst());
    String token = "";
    if (!config.sandboxdTokenFile().isEmpty()) {
      try {
        token =
            Files.readString(Path.of(config.sandboxdTokenFile()), StandardCharsets.UTF_8).strip();
      } catch (IOException e) {
        throw new IllegalStateException(
            "cannot read --sandboxd-token-file (SANDBOXD_TOKEN_FILE) "
                + config.sandboxdTokenFile()
                + ": "
                + e.getMessage(),
            e);
      }
    }
    this.sandboxdClient =
        SandboxdClient.builder(config.sandboxdUrl())
            .token(token)
            .requestTimeout(Duration.ofSeconds(10))
            .claimTimeout(Duration.ofSeconds(10))
            .build();
    this.sandboxd = SandboxdPort.of(sandboxdClient);
    this.podController =
        new PodController(
            config.nodeName(), client, kube.watchClient(), limiter, config.disablePodEvents());
    this.pods =
        new SandboxPods(
            sandboxd,
            new ClaimsFile(config.statePath()),
            new ApiOwners(client, limiter),
            podController::enqueue,
            Clock.systemUTC());
    podController.bind(pods);
    this.node = new NodeController(config, client, limiter, Clock.systemUTC());
    List<X509Certificate> cas = kube.ca();
    if (!config.clientCaFile().isEmpty()) {
      cas = Certificates.readCertificates(Path.of(config.clientCaFile()));
    }
    this.kubelet =
        new KubeletServer(
            config,
            pods,
            SandboxdPort.Exec.of(sandboxdClient),
            SandboxdPort.Logs.of(sandboxdClient),
            SandboxdPort.Stats.of(sandboxdClient),
            client,
            cas);
  }

  /** Starts vk-sandbox with {@code config} and the credentials of the environment. */
  public static VkSandbox start(VkConfig config) {
    new ClaimsFile(config.statePath()).checkWritable();
    return start(config, kube(null));
  }

  /** Starts vk-sandbox with the credentials of one kubeconfig file (tests). */
  static VkSandbox start(VkConfig config, Path kubeconfig) {
    return start(config, kube(kubeconfig));
  }

  static VkSandbox start(VkConfig config, Kube kube) {
    VkSandbox vk;
    try {
      vk = new VkSandbox(config, kube);
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
    try {
      vk.run();
    } catch (RuntimeException e) {
      vk.close();
      throw e;
    }
    return vk;
  }

  private void run() {
    pods.start();
    kubelet.start();
    try {
      node.register();
    } catch (ApiException e) {
      throw new IllegalStateException(
          "cannot register node " + config.nodeName() + ": " + ApiErrors.describe(e), e);
    }
    loops.scheduleWithFixedDelay(guard("lease", node::renewLease), 0, 10, TimeUnit.SECONDS);
    loops.scheduleWithFixedDelay(
        guard("node status", node::updateStatus), 60, 60, TimeUnit.SECONDS);
    podController.start();
    loops.scheduleWithFixedDelay(
        guard("claim verification", pods::verify), 15, 15, TimeUnit.SECONDS);
    loops.scheduleWithFixedDelay(guard("lease watch", pods::leaseWatch), 30, 30, TimeUnit.SECONDS);
    loops.scheduleWithFixedDelay(
        guard("owner re-check", pods::recheckOwners), 5, 5, TimeUnit.SECONDS);
    if (config.renewLeases()) {
      loops.scheduleWithFixedDelay(
          guard("lease renewal", pods::renewLeases), 10, 10, TimeUnit.SECONDS);
    }
    if (!config.orphanScanInterval().isZero()) {
      long ms = config.orphanScanInterval().toMillis();
      loops.scheduleWithFixedDelay(
          guard("orphan scan", pods::orphanScan), ms, ms, TimeUnit.MILLISECONDS);
    }
    if (config.publishInventory()) {
      long ms = config.publishInterval().toMillis();
      loops.scheduleWithFixedDelay(guard("inventory", this::publish), 0, ms, TimeUnit.MILLISECONDS);
    }
    LOG.info(
        "vk-sandbox "
            + Version.version()
            + ": node "
            + config.nodeName()
            + ", sandboxd "
            + config.sandboxdUrl()
            + ", kubelet API :"
            + kubelet.port());
  }

  /** Applies this node's NodeInventory (server-side apply, field manager vk-sandbox, forced). */
  void publish() throws ApiException {
    Map<String, Object> object;
    try {
      object =
          Inventory.build(
              config.inventoryGroup(),
              config.nodeName(),
              config.sandboxdAdvertiseAddr(),
              sandboxd,
              pods.addressesById(),
              java.time.Instant.now());
    } catch (dev.runkora.api.ApiException e) {
      LOG.warning("inventory: cannot read sandboxd (" + e.getMessage() + "); skipped this tick");
      return;
    }
    if (!node.nodeUid().isEmpty()) {
      // Deleting the Node garbage-collects its inventory.
      object.put(
          "metadata",
          Map.of(
              "name",
              config.nodeName(),
              "ownerReferences",
              List.of(
                  Map.of(
                      "apiVersion",
                      "v1",
                      "kind",
                      "Node",
                      "name",
                      config.nodeName(),
                      "uid",
                      node.nodeUid()))));
    }
    String body = JSON.serialize(object);
    CustomObjectsApi custom = new CustomObjectsApi(client);
    limiter.acquire();
    PatchUtils.patch(
        Object.class,
        () ->
            custom
                .patchClusterCustomObject(
                    config.inventoryGroup(),
                    Inventory.VERSION,
                    Inventory.PLURAL,
                    config.nodeName(),
                    new V1Patch(body))
                .fieldManager("vk-sandbox")
                .force(true)
                .buildCall(null),
        V1Patch.PATCH_FORMAT_APPLY_YAML,
        client);
  }

  private interface Task {
    void run() throws Exception;
  }

  private static Runnable guard(String name, Task task) {
    return () -> {
      try {
        task.run();
      } catch (ApiException e) {
        LOG.warning(name + ": " + ApiErrors.describe(e));
      } catch (Exception e) {
        LOG.log(Level.WARNING, name + " failed", e);
      }
    };
  }

  private static Runnable guard(String name, java.util.function.BooleanSupplier task) {
    return guard(name, (Task) task::getAsBoolean);
  }

  /** The port the kubelet API listens on. */
  public int kubeletPort() {
    return kubelet.port();
  }

  /** Blocks until {@link #close()}. */
  public void awaitStop() throws InterruptedException {
    stopped.await();
  }

  @Override
  public void close() {
    loops.shutdownNow();
    podController.close();
    kubelet.close();
    pods.close();
    sandboxdClient.close();
    stopped.countDown();
  }

  /** The Kubernetes credentials: in-cluster first, then {@code $KUBECONFIG} (or the given file). */
  static Kube kube(Path kubeconfig) {
    try {
      if (kubeconfig == null
          && System.getenv("KUBERNETES_SERVICE_HOST") != null
          && Files.isReadable(SERVICE_ACCOUNT.resolve("token"))) {
        ApiClient c = ClientBuilder.cluster().build();
        ApiClient w = ClientBuilder.cluster().setReadTimeout(Duration.ZERO).build();
        return new Kube(c, w, Certificates.readCertificates(SERVICE_ACCOUNT.resolve("ca.crt")));
      }
      Path file = kubeconfig;
      if (file == null) {
        String env = System.getenv("KUBECONFIG");
        if (env == null || env.isBlank()) {
          throw new IllegalStateException(
              "no Kubernetes credentials: not running in a cluster and KUBECONFIG is not set;"
                  + " point KUBECONFIG at a kubeconfig file (the systemd unit uses"
                  + " /etc/cocoon/kubeconfig)");
        }
        file = Path.of(env.split(java.io.File.pathSeparator)[0]);
      }
      KubeConfig cfg;
      try (Reader r = Files.newBufferedReader(file)) {
        cfg = KubeConfig.loadKubeConfig(r);
      }
      cfg.setFile(file.toFile());
      ApiClient c = ClientBuilder.kubeconfig(cfg).setReadTimeout(Duration.ofSeconds(30)).build();
      ApiClient w = ClientBuilder.kubeconfig(cfg).setReadTimeout(Duration.ZERO).build();
      List<X509Certificate> ca = List.of();
      if (cfg.getCertificateAuthorityData() != null) {
        ca =
            Certificates.readCertificates(
                Base64.getDecoder().decode(cfg.getCertificateAuthorityData().strip()));
      } else if (cfg.getCertificateAuthorityFile() != null) {
        Path caFile = Path.of(cfg.getCertificateAuthorityFile());
        if (!caFile.isAbsolute() && file.getParent() != null) {
          caFile = file.getParent().resolve(caFile);
        }
        ca = Certificates.readCertificates(caFile);
      }
      return new Kube(c, w, ca);
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalStateException("cannot load Kubernetes credentials: " + e.getMessage(), e);
    }
  }
}
