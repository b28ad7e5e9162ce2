package dev.runkora.testing.cluster;

import static org.awaitility.Awaitility.await;

import io.kubernetes.client.custom.Quantity;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoordinationV1Api;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1ContainerState;
import io.kubernetes.client.openapi.models.V1ContainerStateRunning;
import io.kubernetes.client.openapi.models.V1ContainerStatus;
import io.kubernetes.client.openapi.models.V1DaemonEndpoint;
import io.kubernetes.client.openapi.models.V1HostIP;
import io.kubernetes.client.openapi.models.V1Lease;
import io.kubernetes.client.openapi.models.V1LeaseSpec;
import io.kubernetes.client.openapi.models.V1Node;
import io.kubernetes.client.openapi.models.V1NodeAddress;
import io.kubernetes.client.openapi.models.V1NodeCondition;
import io.kubernetes.client.openapi.models.V1NodeDaemonEndpoints;
import io.kubernetes.client.openapi.models.V1NodeSpec;
import io.kubernetes.client.openapi.models.V1NodeStatus;
import io.kubernetes.client.openapi.models.V1NodeSystemInfo;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1OwnerReference;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodCondition;
import io.kubernetes.client.openapi.models.V1PodIP;
import io.kubernetes.client.openapi.models.V1PodStatus;
import io.kubernetes.client.openapi.models.V1Taint;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A node registered purely through the API, standing in for a kubelet so that scheduling can be
 * tested without one.
 *
 * <p>{@link Builder#start(ApiClient)} creates the Node (capacity and allocatable, labels, taints,
 * Ready conditions, node info, InternalIP 127.0.0.1), creates its Lease in {@code kube-node-lease}
 * (owned by the Node), and waits until the node-lifecycle controller has removed the {@code
 * node.kubernetes.io/not-ready} taint that every new Node gets. While it runs it renews the Lease
 * every 10 s, marks every pod bound to it Running (a status update with a placeholder pod IP from
 * 10.244.0.0/16, Ready conditions and running container statuses) and completes the deletion of its
 * pods (DELETE with grace period 0 once a deletion timestamp is set), which is what preemption
 * waits for. {@link #close()} stops all that, force-deletes the pods still bound to it, and deletes
 * the Lease and the Node.
 *
 * <p>Pods are found by polling ({@value #POD_POLL_MILLIS} ms) with the field selector {@code
 * spec.nodeName=<name>}; two background threads, no watch connection to keep alive.
 */
public final class FakeNode implements AutoCloseable {
  private static final String LEASE_NAMESPACE = "kube-node-lease";
  private static final String NOT_READY_TAINT = "node.kubernetes.io/not-ready";
  private static final int LEASE_DURATION_SECONDS = 40;
  private static final long LEASE_RENEW_SECONDS = 10;
  private static final long POD_POLL_MILLIS = 250;
  private static final AtomicInteger NODE_INDEX = new AtomicInteger();

  private final String name;
  private final ApiClient client;
  private final CoreV1Api core;
  private final CoordinationV1Api coordination;
  private final ScheduledExecutorService executor;
  private final Set<String> markedRunning = ConcurrentHashMap.newKeySet();
  private final int nodeIndex = NODE_INDEX.getAndIncrement() % 250 + 1;
  private final AtomicInteger podIndex = new AtomicInteger();
  private volatile V1Lease lease;
  private volatile String lastError = "";

  private FakeNode(String name, ApiClient client) {
    this.name = name;
    this.client = client;
    this.core = new CoreV1Api(client);
    this.coordination = new CoordinationV1Api(client);
    this.executor =
        Executors.newScheduledThreadPool(
            2, Thread.ofPlatform().daemon().name("fake-node-" + name + "-", 0).factory());
  }

  /**
   * Starts describing a fake node; by default it has 4 CPUs, 16Gi of memory and room for 110 pods.
   *
   * @param name the Node's name (a DNS subdomain, unique in the cluster)
   * @return a builder
   */
  public static Builder builder(String name) {
    return new Builder(name);
  }

  /**
   * The Node's name.
   *
   * @return the name
   */
  public String name() {
    return name;
  }

  private void register(Builder spec) throws ApiException {
    OffsetDateTime now = now();
    Map<String, Quantity> resources = new LinkedHashMap<>();
    resources.put("cpu", Quantity.fromString(spec.cpu));
    resources.put("memory", Quantity.fromString(spec.memory));
    resources.put("pods", Quantity.fromString(Integer.toString(spec.pods)));
    resources.put("ephemeral-storage", Quantity.fromString("100Gi"));
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put("type", "fake");
    labels.put("kubernetes.io/hostname", name);
    labels.put("kubernetes.io/os", "linux");
    labels.put("kubernetes.io/arch", "amd64");
    labels.putAll(spec.labels);
    List<V1NodeCondition> conditions = new ArrayList<>();
    conditions.add(condition("Ready", "True", "KubeletReady", "fake node is ready", now));
    // The reasons a kubelet reports for the three pressure conditions.
    conditions.add(condition("MemoryPressure", "False", "KubeletHasSufficientMemory", "", now));
    conditions.add(condition("DiskPressure", "False", "KubeletHasNoDiskPressure", "", now));
    conditions.add(condition("PIDPressure", "False", "KubeletHasSufficientPID", "", now));
    V1Node node =
        new V1Node()
            .metadata(new V1ObjectMeta().name(name).labels(labels))
            .spec(new V1NodeSpec().providerID("fake://" + name).taints(List.copyOf(spec.taints)))
            .status(
                new V1NodeStatus()
                    .capacity(resources)
                    .allocatable(resources)
                    .conditions(conditions)
                    .addresses(
                        List.of(
                            new V1NodeAddress().type("InternalIP").address("127.0.0.1"),
                            new V1NodeAddress().type("Hostname").address(name)))
                    .daemonEndpoints(
                        new V1NodeDaemonEndpoints()
                            .kubeletEndpoint(new V1DaemonEndpoint().port(10250)))
                    .nodeInfo(
                        new V1NodeSystemInfo()
                            .machineID(name)
                            .systemUUID(name)
                            .bootID(name)
                            .kernelVersion("fake")
                            .osImage("fake")
                            .containerRuntimeVersion("fake://0")
                            .kubeletVersion("v0.0.0-fake")
                            .kubeProxyVersion("")
                            .operatingSystem("linux")
                            .architecture("amd64")));
    V1Node created = core.createNode(node).execute();
    try {
      lease =
          coordination
              .createNamespacedLease(
                  LEASE_NAMESPACE,
                  new V1Lease()
                      .metadata(
                          new V1ObjectMeta()
                              .name(name)
                              .namespace(LEASE_NAMESPACE)
                              .ownerReferences(
                                  List.of(
                                      new V1OwnerReference()
                                          .apiVersion("v1")
                                          .kind("Node")
                                          .name(name)
                                          .uid(created.getMetadata().getUid()))))
                      .spec(
                          new V1LeaseSpec()
                              .holderIdentity(name)
                              .leaseDurationSeconds(LEASE_DURATION_SECONDS)
                              .renewTime(now)))
              .execute();
      executor.scheduleWithFixedDelay(
          this::renewLease, LEASE_RENEW_SECONDS, LEASE_RENEW_SECONDS, TimeUnit.SECONDS);
      executor.scheduleWithFixedDelay(this::tendPods, 0, POD_POLL_MILLIS, TimeUnit.MILLISECONDS);
      await("node " + name + " ready and without the not-ready taint")
          .atMost(spec.readyTimeout)
          .pollInterval(Duration.ofMillis(200))
          .ignoreException(ApiException.class)
          .until(() -> isReady(core.readNode(name).execute()));
    } catch (ApiException | RuntimeException e) {
      close();
      throw e;
    }
  }

  private static boolean isReady(V1Node node) {
    List<V1Taint> taints = node.getSpec() == null ? null : node.getSpec().getTaints();
    boolean notReadyTaint =
        taints != null && taints.stream().anyMatch(t -> NOT_READY_TAINT.equals(t.getKey()));
    List<V1NodeCondition> conditions =
        node.getStatus() == null ? null : node.getStatus().getConditions();
    boolean ready =
        conditions != null
            && conditions.stream()
                .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
    return ready && !notReadyTaint;
  }

  private void renewLease() {
    try {
      V1Lease current = lease;
      current.getSpec().renewTime(now());
      try {
        lease = coordination.replaceNamespacedLease(name, LEASE_NAMESPACE, current).execute();
      } catch (ApiException e) {
        if (e.getCode() != 409) {
          throw e;
        }
        V1Lease fresh = coordination.readNamespacedLease(name, LEASE_NAMESPACE).execute();
        fresh.getSpec().holderIdentity(name).renewTime(now());
        lease = coordination.replaceNamespacedLease(name, LEASE_NAMESPACE, fresh).execute();
      }
    } catch (ApiException | RuntimeException e) {
      report("renewing the lease", e);
    }
  }

  private void tendPods() {
    try {
      for (V1Pod pod : boundPods()) {
        V1ObjectMeta meta = pod.getMetadata();
        if (meta.getDeletionTimestamp() != null) {
          forceDelete(pod);
        } else if (!markedRunning.contains(meta.getUid()) && isPending(pod)) {
          if (markRunning(pod)) {
            markedRunning.add(meta.getUid());
          }
        }
      }
    } catch (ApiException | RuntimeException e) {
      report("tending pods", e);
    }
  }

  private List<V1Pod> boundPods() throws ApiException {
    return core.listPodForAllNamespaces()
        .fieldSelector("spec.nodeName=" + name)
        .execute()
        .getItems();
  }

  private static boolean isPending(V1Pod pod) {
    String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
    return phase == null || phase.equals("Pending");
  }

  /** Marks the pod Running; false when it changed or went meanwhile (the next poll retries). */
  private boolean markRunning(V1Pod pod) throws ApiException {
    OffsetDateTime now = now();
    String podIp = "10.244." + nodeIndex + "." + (podIndex.getAndIncrement() % 250 + 2);
    List<V1ContainerStatus> containers = new ArrayList<>();
    for (V1Container container : pod.getSpec().getContainers()) {
      containers.add(
          new V1ContainerStatus()
              .name(container.getName())
              .image(container.getImage())
              .imageID("")
              .containerID("fake://" + pod.getMetadata().getUid() + "/" + container.getName())
              .ready(true)
              .started(true)
              .restartCount(0)
              .state(new V1ContainerState().running(new V1ContainerStateRunning().startedAt(now))));
    }
    List<V1PodCondition> conditions = new ArrayList<>();
    for (String type :
        List.of("PodReadyToStartContainers", "Initialized", "ContainersReady", "Ready")) {
      conditions.add(new V1PodCondition().type(type).status("True").lastTransitionTime(now));
    }
    // Read-modify-write of the pod as listed keeps the conditions others set (PodScheduled,
    // DisruptionTarget); a conflict is retried on the next poll. (A patch would need okhttp3 types
    // in this module, which then land on the module path and hide their internals from
    // client-java.)
    V1PodStatus status = pod.getStatus() == null ? new V1PodStatus() : pod.getStatus();
    List<V1PodCondition> merged = new ArrayList<>();
    if (status.getConditions() != null) {
      for (V1PodCondition existing : status.getConditions()) {
        if (conditions.stream().noneMatch(c -> c.getType().equals(existing.getType()))) {
          merged.add(existing);
        }
      }
    }
    merged.addAll(conditions);
    pod.status(
        status
            .phase("Running")
            .hostIP("127.0.0.1")
            .hostIPs(List.of(new V1HostIP().ip("127.0.0.1")))
            .podIP(podIp)
            .podIPs(List.of(new V1PodIP().ip(podIp)))
            .startTime(now)
            .conditions(merged)
            .containerStatuses(containers));
    try {
      core.replaceNamespacedPodStatus(
              pod.getMetadata().getName(), pod.getMetadata().getNamespace(), pod)
          .execute();
    } catch (ApiException e) {
      if (e.getCode() == 409 || e.getCode() == 404) {
        return false;
      }
      throw e;
    }
    return true;
  }

  private void forceDelete(V1Pod pod) throws ApiException {
    try {
      core.deleteNamespacedPod(pod.getMetadata().getName(), pod.getMetadata().getNamespace())
          .gracePeriodSeconds(0)
          .execute();
    } catch (ApiException e) {
      if (e.getCode() != 404) {
        throw e;
      }
    }
  }

  private void report(String what, Exception e) {
    if (executor.isShutdown() && what.startsWith("tending")) {
      return; // close() interrupted a poll in flight
    }
    String message =
        e instanceof ApiException api ? api.getCode() + " " + api.getResponseBody() : e.toString();
    if (!message.equals(lastError)) {
      lastError = message;
      System.err.println("fake node " + name + ": " + what + " failed: " + message);
    }
  }

  /**
   * Stops heartbeats and pod handling, force-deletes the pods still bound to the node, and deletes
   * its Lease and the Node. Failures are reported on standard error, not thrown.
   */
  @Override
  public void close() {
    executor.shutdownNow();
    try {
      executor.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    try {
      for (V1Pod pod : boundPods()) {
        forceDelete(pod);
      }
    } catch (ApiException | RuntimeException e) {
      report("deleting its pods", e);
    }
    try {
      coordination.deleteNamespacedLease(name, LEASE_NAMESPACE).execute();
    } catch (ApiException e) {
      if (e.getCode() != 404) {
        report("deleting the lease", e);
      }
    }
    try {
      core.deleteNode(name).execute();
    } catch (ApiException e) {
      if (e.getCode() != 404) {
        report("deleting the node", e);
      }
    }
  }

  private static V1NodeCondition condition(
      String type, String status, String reason, String message, OffsetDateTime now) {
    return new V1NodeCondition()
        .type(type)
        .status(status)
        .reason(reason)
        .message(message)
        .lastHeartbeatTime(now)
        .lastTransitionTime(now);
  }

  private static OffsetDateTime now() {
    return OffsetDateTime.now(ZoneOffset.UTC).truncatedTo(ChronoUnit.MICROS);
  }

  /** Describes a fake node before it is registered. */
  public static final class Builder {
    private final String name;
    private String cpu = "4";
    private String memory = "16Gi";
    private int pods = 110;
    private final Map<String, String> labels = new LinkedHashMap<>();
    private final List<V1Taint> taints = new ArrayList<>();
    private Duration readyTimeout = Duration.ofSeconds(90);

    private Builder(String name) {
      if (name == null || !name.matches("[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?")) {
        throw new IllegalArgumentException("not a valid node name: " + name);
      }
      this.name = name;
    }

    /**
     * Sets capacity and allocatable CPU.
     *
     * @param quantity a Kubernetes quantity, e.g. {@code "4"} or {@code "2500m"}
     * @return this builder
     */
    public Builder cpu(String quantity) {
      Quantity.fromString(quantity);
      this.cpu = quantity;
      return this;
    }

    /**
     * Sets capacity and allocatable memory.
     *
     * @param quantity a Kubernetes quantity, e.g. {@code "16Gi"}
     * @return this builder
     */
    public Builder memory(String quantity) {
      Quantity.fromString(quantity);
      this.memory = quantity;
      return this;
    }

    /**
     * Sets how many pods fit (without a {@code pods} capacity no pod fits).
     *
     * @param count at least 1
     * @return this builder
     */
    public Builder pods(int count) {
      if (count < 1) {
        throw new IllegalArgumentException("pods must be at least 1: " + count);
      }
      this.pods = count;
      return this;
    }

    /**
     * Adds a label (besides {@code type=fake}, hostname, os and arch).
     *
     * @param key the label key
     * @param value the label value
     * @return this builder
     */
    public Builder label(String key, String value) {
      labels.put(key, value);
      return this;
    }

    /**
     * Adds a taint.
     *
     * @param key the taint key
     * @param value the taint value
     * @param effect {@code NoSchedule}, {@code PreferNoSchedule} or {@code NoExecute}
     * @return this builder
     */
    public Builder taint(String key, String value, String effect) {
      if (!Set.of("NoSchedule", "PreferNoSchedule", "NoExecute").contains(effect)) {
        throw new IllegalArgumentException("not a taint effect: " + effect);
      }
      taints.add(new V1Taint().key(key).value(value).effect(effect));
      return this;
    }

    /**
     * Sets how long {@link #start} waits for the node to become schedulable (default 90 s).
     *
     * @param timeout the wait
     * @return this builder
     */
    public Builder readyTimeout(Duration timeout) {
      this.readyTimeout = timeout;
      return this;
    }

    /**
     * Registers the node and its Lease, starts heartbeats and pod handling, and waits until the
     * node is Ready and no longer tainted not-ready.
     *
     * @param client a client allowed to write nodes, leases and pod status
     * @return the running fake node; close it to remove it
     * @throws ApiException when the API server refuses the Node or the Lease
     */
    public FakeNode start(ApiClient client) throws ApiException {
      FakeNode node = new FakeNode(name, client);
      node.register(this);
      return node;
    }
  }
}
