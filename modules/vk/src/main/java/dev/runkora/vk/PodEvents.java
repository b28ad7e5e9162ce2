package dev.runkora.vk;

import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.CoreV1Event;
import io.kubernetes.client.openapi.models.V1EventSource;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1ObjectReference;
import io.kubernetes.client.openapi.models.V1Pod;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.logging.Logger;

/**
 * Pod events, sent in the background: Normal ones (claimed, adopted) unless {@code
 * --disable-pod-events}; Warnings always. A Warning repeated for the same Pod is sent once.
 */
final class PodEvents implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(PodEvents.class.getName());

  private final String nodeName;
  private final CoreV1Api core;
  private final RateLimiter limiter;
  private final boolean dropNormal;
  private final ExecutorService sender =
      Executors.newSingleThreadExecutor(Thread.ofPlatform().name("vk-events").daemon().factory());
  private final Map<String, String> lastWarning = new ConcurrentHashMap<>();

  PodEvents(String nodeName, ApiClient client, RateLimiter limiter, boolean dropNormal) {
    this.nodeName = nodeName;
    this.core = new CoreV1Api(client);
    this.limiter = limiter;
    this.dropNormal = dropNormal;
  }

  void normal(V1Pod pod, String reason, String message) {
    if (!dropNormal) {
      send(pod, "Normal", reason, message);
    }
  }

  void warning(V1Pod pod, String reason, String message) {
    String key = pod.getMetadata().getUid();
    if ((reason + message).equals(lastWarning.put(key, reason + message))) {
      return;
    }
    send(pod, "Warning", reason, message);
  }

  private void send(V1Pod pod, String type, String reason, String message) {
    OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
    String ns = pod.getMetadata().getNamespace();
    CoreV1Event event =
        new CoreV1Event()
            .metadata(
                new V1ObjectMeta()
                    .namespace(ns)
                    .name(
                        pod.getMetadata().getName()
                            + "."
                            + UUID.randomUUID().toString().substring(0, 8)))
            .involvedObject(
                new V1ObjectReference()
                    .apiVersion("v1")
                    .kind("Pod")
                    .namespace(ns)
                    .name(pod.getMetadata().getName())
                    .uid(pod.getMetadata().getUid()))
            .type(type)
            .reason(reason)
            .message(message.length() > 1024 ? message.substring(0, 1024) : message)
            .source(new V1EventSource().component("vk-sandbox").host(nodeName))
            .reportingComponent("vk-sandbox")
            .reportingInstance(nodeName)
            .firstTimestamp(now)
            .lastTimestamp(now)
            .count(1);
    sender.execute(
        () -> {
          try {
            limiter.acquire();
            core.createNamespacedEvent(ns, event).execute();
          } catch (ApiException e) {
            LOG.fine(
                "event "
                    + reason
                    + " for "
                    + ns
                    + "/"
                    + pod.getMetadata().getName()
                    + ": "
                    + e.getCode());
          }
        });
  }

  @Override
  public void close() {
    sender.shutdownNow();
  }
}
