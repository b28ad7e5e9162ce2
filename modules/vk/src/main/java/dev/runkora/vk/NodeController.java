package dev.runkora.vk;

import io.kubernetes.client.custom.Quantity;
import io.kubernetes.client.custom.V1Patch;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.JSON;
import io.kubernetes.client.openapi.apis.CoordinationV1Api;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1DaemonEndpoint;
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
import io.kubernetes.client.openapi.models.V1Taint;
import io.kubernetes.client.util.PatchUtils;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.logging.Logger;

/**
 * The virtual Node: registration (status patch first, create on NotFound), the Lease in {@code
 * kube-node-lease} renewed every 10 s, and the node status kept current every minute.
 */
final class NodeController {
  private static final Logger LOG = Logger.getLogger(NodeController.class.getName());
  static final String LEASE_NAMESPACE = "kube-node-lease";
  static final int LEASE_SECONDS = 40;
  static final String TAINT_KEY = "virtual-kubelet.io/provider";

  private final VkConfig config;
  private final ApiClient client;
  private final CoreV1Api core;
  private final CoordinationV1Api coordination;
  private final RateLimiter limiter;
  private final Clock clock;
  private volatile String nodeUid = "";

  NodeController(VkConfig config, ApiClient client, RateLimiter limiter, Clock clock) {
    this.config = config;
    this.client = client;
    this.core = new CoreV1Api(client);
    this.coordination = new CoordinationV1Api(client);
    this.limiter = limiter;
    this.clock = clock;
  }

  String nodeUid() {
    return nodeUid;
  }

  /** The Node as vk-sandbox registers it. */
  V1Node desired() {
    OffsetDateTime now = now();
    Map<String, Quantity> capacity = new LinkedHashMap<>();
    capacity.put("cpu", Quantity.fromString(config.nodeCpu()));
    capacity.put("memory", Quantity.fromString(config.nodeMemory()));
    capacity.put("pods", Quantity.fromString(config.nodePods()));
    return new V1Node()
        .apiVersion("v1")
        .kind("Node")
        .metadata(new V1ObjectMeta().name(config.nodeName()).labels(config.allNodeLabels()))
        .spec(
            new V1NodeSpec()
                .taints(
                    List.of(new V1Taint().key(TAINT_KEY).value("sandboxd").effect("NoSchedule"))))
        .status(
            new V1NodeStatus()
                .capacity(capacity)
                .allocatable(capacity)
                .addresses(addresses())
                .daemonEndpoints(
                    new V1NodeDaemonEndpoints()
                        .kubeletEndpoint(new V1DaemonEndpoint().port(config.listenPort())))
                .conditions(conditions(now))
                .nodeInfo(
                    new V1NodeSystemInfo()
                        .architecture(
                            System.getProperty("os.arch").equals("amd64") ? "amd64" : "arm64")
                        .operatingSystem("linux")
                        .kubeletVersion("v1.36.0-vk-sandbox-" + Version.version())
                        .kubeProxyVersion("")
                        .containerRuntimeVersion("sandboxd://" + Version.version())
                        .machineID("")
                        .systemUUID("")
                        .bootID("")
                        .kernelVersion("")
                        .osImage("")));
  }

  private List<V1NodeAddress> addresses() {
    List<V1NodeAddress> a = new ArrayList<>();
    if (!config.nodeIp().isEmpty()) {
      a.add(new V1NodeAddress().type("InternalIP").address(config.nodeIp()));
    }
    a.add(new V1NodeAddress().type("Hostname").address(config.nodeName()));
    return a;
  }

  static List<V1NodeCondition> conditions(OffsetDateTime now) {
    List<V1NodeCondition> c = new ArrayList<>();
    c.add(
        new V1NodeCondition()
            .type("Ready")
            .status("True")
            .reason("KubeletReady")
            .message("Kubelet is ready")
            .lastHeartbeatTime(now)
            .lastTransitionTime(now));
    for (String[] t :
        new String[][] {
          {"MemoryPressure", "KubeletHasSufficientMemory", "sandboxd manages memory"},
          {"DiskPressure", "KubeletHasNoDiskPressure", "sandboxd manages disk"},
          {"PIDPressure", "KubeletHasSufficientPID", "sandboxd manages processes"},
          {"NetworkUnavailable", "RouteCreated", "sandboxd manages the network"}
        }) {
      c.add(
          new V1NodeCondition()
              .type(t[0])
              .status("False")
              .reason(t[1])
              .message(t[2])
              .lastHeartbeatTime(now)
              .lastTransitionTime(now));
    }
    return c;
  }

  private OffsetDateTime now() {
    return OffsetDateTime.ofInstant(clock.instant(), ZoneOffset.UTC);
  }

  /** Registers the Node: patches its status, creates it when missing, and sets its metadata. */
  void register() throws ApiException {
    V1Node desired = desired();
    V1Node node;
    try {
      limiter.acquire();
      node = core.readNode(config.nodeName()).execute();
    } catch (ApiException e) {
      if (e.getCode() != 404) {
        throw e;
      }
      limiter.acquire();
      node = core.createNode(desired).execute();
      nodeUid = node.getMetadata().getUid();
      LOG.info("registered node " + config.nodeName());
      return;
    }
    nodeUid = node.getMetadata().getUid();
    // Labels merge by key; the taint list is replaced with ours plus any others already there.
    List<V1Taint> taints = new ArrayList<>(desired.getSpec().getTaints());
    if (node.getSpec() != null && node.getSpec().getTaints() != null) {
      for (V1Taint t : node.getSpec().getTaints()) {
        if (!TAINT_KEY.equals(t.getKey())) {
          taints.add(t);
        }
      }
    }
    Map<String, Object> meta =
        Map.of(
            "metadata",
            Map.of("labels", desired.getMetadata().getLabels()),
            "spec",
            Map.of("taints", taints));
    String body = JSON.serialize(meta);
    limiter.acquire();
    PatchUtils.patch(
        V1Node.class,
        () -> core.patchNode(config.nodeName(), new V1Patch(body)).buildCall(null),
        V1Patch.PATCH_FORMAT_STRATEGIC_MERGE_PATCH,
        client);
    patchStatus(desired.getStatus());
    LOG.info("node " + config.nodeName() + " exists; labels, taint and status updated");
  }

  /** Pushes the node status with every condition's heartbeat at now. */
  void updateStatus() throws ApiException {
    patchStatus(desired().getStatus());
  }

  private void patchStatus(V1NodeStatus status) throws ApiException {
    String body = JSON.serialize(Map.of("status", status));
    limiter.acquire();
    PatchUtils.patch(
        V1Node.class,
        () -> core.patchNodeStatus(config.nodeName(), new V1Patch(body)).buildCall(null),
        V1Patch.PATCH_FORMAT_STRATEGIC_MERGE_PATCH,
        client);
  }

  /** Creates or renews the node Lease (holder = node name, 40 s, renewTime = now). */
  void renewLease() throws ApiException {
    String name = config.nodeName();
    for (int attempt = 0; attempt < 5; attempt++) {
      V1Lease lease;
      try {
        limiter.acquire();
        lease = coordination.readNamespacedLease(name, LEASE_NAMESPACE).execute();
      } catch (ApiException e) {
        if (e.getCode() != 404) {
          throw e;
        }
        lease = null;
      }
      V1LeaseSpec spec =
          new V1LeaseSpec()
              .holderIdentity(name)
              .leaseDurationSeconds(LEASE_SECONDS)
              .renewTime(OffsetDateTime.now(clock).withOffsetSameInstant(ZoneOffset.UTC));
      try {
        limiter.acquire();
        if (lease == null) {
          coordination
              .createNamespacedLease(
                  LEASE_NAMESPACE,
                  new V1Lease()
                      .metadata(new V1ObjectMeta().name(name).ownerReferences(owner()))
                      .spec(spec))
              .execute();
        } else {
          if (lease.getMetadata().getOwnerReferences() == null
              || lease.getMetadata().getOwnerReferences().isEmpty()) {
            lease.getMetadata().setOwnerReferences(owner());
          }
          lease.setSpec(
              spec.acquireTime(lease.getSpec() == null ? null : lease.getSpec().getAcquireTime()));
          coordination.replaceNamespacedLease(name, LEASE_NAMESPACE, lease).execute();
        }
        return;
      } catch (ApiException e) {
        if (e.getCode() != 409) {
          throw e;
        }
      }
    }
    throw new ApiException(409, "lease renewal kept conflicting");
  }

  private List<V1OwnerReference> owner() {
    if (nodeUid.isEmpty()) {
      return null;
    }
    return List.of(
        new V1OwnerReference().apiVersion("v1").kind("Node").name(config.nodeName()).uid(nodeUid));
  }
}
