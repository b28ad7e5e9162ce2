package dev.runkora.testing.cluster;

import io.kubernetes.client.custom.Quantity;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.CoreV1Event;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodCondition;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.kubernetes.client.openapi.models.V1ResourceRequirements;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

/** Pods and look-ups shared by the cluster tests. */
final class TestPods {
  private TestPods() {}

  /** A name no other test run uses, for cluster-scoped objects. */
  static String unique(String prefix) {
    return prefix + "-" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt());
  }

  /** A pod with one container that requests the given CPU and memory; no kubelet ever runs it. */
  static V1Pod pod(String name, String cpu, String memory) {
    return new V1Pod()
        .metadata(new V1ObjectMeta().name(name))
        .spec(
            new V1PodSpec()
                // client-java 27 initialises every map, and an empty overhead map makes the
                // RuntimeClass admission plugin reject the pod (kubernetes-client/java#3076).
                .overhead(null)
                .automountServiceAccountToken(false)
                .containers(
                    List.of(
                        new V1Container()
                            .name("main")
                            .image("registry.invalid/kora/placeholder:1")
                            .resources(
                                new V1ResourceRequirements()
                                    .requests(
                                        Map.of(
                                            "cpu",
                                            Quantity.fromString(cpu),
                                            "memory",
                                            Quantity.fromString(memory)))))));
  }

  static V1Pod create(CoreV1Api core, TestNamespace namespace, V1Pod pod) throws ApiException {
    return core.createNamespacedPod(namespace.name(), pod).execute();
  }

  /** The pod, or empty once it is gone. */
  static Optional<V1Pod> read(CoreV1Api core, TestNamespace namespace, String name)
      throws ApiException {
    try {
      return Optional.of(core.readNamespacedPod(name, namespace.name()).execute());
    } catch (ApiException e) {
      if (e.getCode() == 404) {
        return Optional.empty();
      }
      throw e;
    }
  }

  /** The node the pod is bound to, or empty while it is not bound. */
  static Optional<String> nodeOf(CoreV1Api core, TestNamespace namespace, String name)
      throws ApiException {
    return read(core, namespace, name).map(p -> p.getSpec().getNodeName());
  }

  static Optional<V1PodCondition> condition(V1Pod pod, String type) {
    if (pod.getStatus() == null || pod.getStatus().getConditions() == null) {
      return Optional.empty();
    }
    return pod.getStatus().getConditions().stream()
        .filter(c -> type.equals(c.getType()))
        .findFirst();
  }

  /** The messages of the pod's FailedScheduling events, oldest first. */
  static List<String> failedScheduling(CoreV1Api core, TestNamespace namespace, String pod)
      throws ApiException {
    return core
        .listNamespacedEvent(namespace.name())
        .fieldSelector(
            "involvedObject.kind=Pod,involvedObject.name=" + pod + ",reason=FailedScheduling")
        .execute()
        .getItems()
        .stream()
        .map(CoreV1Event::getMessage)
        .toList();
  }
}
