package dev.runkora.vk;

import io.kubernetes.client.custom.V1Patch;
import io.kubernetes.client.informer.ListerWatcher;
import io.kubernetes.client.informer.ResourceEventHandler;
import io.kubernetes.client.informer.SharedIndexInformer;
import io.kubernetes.client.informer.SharedInformerFactory;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.JSON;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1DeleteOptions;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodList;
import io.kubernetes.client.openapi.models.V1PodStatus;
import io.kubernetes.client.openapi.models.V1Preconditions;
import io.kubernetes.client.util.CallGeneratorParams;
import io.kubernetes.client.util.Watchable;
import io.kubernetes.client.util.generic.GenericKubernetesApi;
import io.kubernetes.client.util.generic.KubernetesApiResponse;
import io.kubernetes.client.util.generic.options.ListOptions;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The pod controller: watches the Pods bound to the node ({@code spec.nodeName=<node>}), hands them
 * to {@link SandboxPods} one key at a time, pushes the rendered status (with the claim id
 * annotation) by strategic merge patch of {@code pods/status}, and completes graceful deletion by
 * deleting the Pod with grace 0 and a UID precondition.
 */
final class PodController implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(PodController.class.getName());
  private static final int WORKERS = 16;

  private final String nodeName;
  private final ApiClient client;
  private final CoreV1Api core;
  private final RateLimiter limiter;
  private SandboxPods pods;
  private final PodEvents events;
  private final SharedInformerFactory factory;
  private final SharedIndexInformer<V1Pod> informer;
  private final ExecutorService workers =
      Executors.newFixedThreadPool(WORKERS, Thread.ofPlatform().name("vk-pod-", 0).factory());
  private final ScheduledExecutorService retries =
      Executors.newSingleThreadScheduledExecutor(
          Thread.ofPlatform().name("vk-pod-retry").daemon().factory());

  // The keyed queue: a key is in at most one of queued/running; dirty re-runs it after.
  private final Set<String> queued = new LinkedHashSet<>();
  private final Set<String> running = new LinkedHashSet<>();
  private final Set<String> dirty = new LinkedHashSet<>();
  private final Map<String, V1Pod> gone = new ConcurrentHashMap<>();
  private final Map<String, Integer> failures = new HashMap<>();
  // What was last pushed per key (UID, phase, pod IP, reason, claim id): the informer's copy lags
  // behind our own patch, and a second identical patch would only load the API server.
  private final Map<String, String> pushed = new ConcurrentHashMap<>();
  // -Dkora.vk.trace=true: per-Pod nanoTime marks of the create path (watch event, worker, claimed,
  // patch sent, patch answered), logged once Running is written; dropped with the Pod.
  private static final boolean TRACE = Boolean.getBoolean("kora.vk.trace");
  private final Map<String, long[]> trace = new ConcurrentHashMap<>();

  PodController(
      String nodeName,
      ApiClient client,
      ApiClient watchClient,
      RateLimiter limiter,
      boolean disablePodEvents) {
    this.nodeName = nodeName;
    this.events = new PodEvents(nodeName, client, limiter, disablePodEvents);
    this.client = client;
    this.core = new CoreV1Api(client);
    this.limiter = limiter;
    this.factory = new SharedInformerFactory(watchClient);
    GenericKubernetesApi<V1Pod, V1PodList> api =
        new GenericKubernetesApi<>(V1Pod.class, V1PodList.class, "", "v1", "pods", watchClient);
    String selector = "spec.nodeName=" + nodeName;
    ListerWatcher<V1Pod, V1PodList> lw =
        new ListerWatcher<>() {
          @Override
          public V1PodList list(CallGeneratorParams params) throws ApiException {
            KubernetesApiResponse<V1PodList> r =
                api.list(
                    new ListOptions()
                        .fieldSelector(selector)
                        .resourceVersion(params.resourceVersion)
                        .timeoutSeconds(params.timeoutSeconds));
            return r.throwsApiException().getObject();
          }

          @Override
          public Watchable<V1Pod> watch(CallGeneratorParams params) throws ApiException {
            return api.watch(
                new ListOptions()
                    .fieldSelector(selector)
                    .resourceVersion(params.resourceVersion)
                    .timeoutSeconds(params.timeoutSeconds));
          }
        };
    this.informer = factory.sharedIndexInformerFor(lw, V1Pod.class, 0);
    informer.addEventHandler(
        new ResourceEventHandler<>() {
          @Override
          public void onAdd(V1Pod pod) {
            enqueue(SandboxPods.key(pod));
          }

          @Override
          public void onUpdate(V1Pod old, V1Pod pod) {
            enqueue(SandboxPods.key(pod));
          }

          @Override
          public void onDelete(V1Pod pod, boolean finalStateUnknown) {
            String key = SandboxPods.key(pod);
            gone.put(key, pod);
            enqueue(key);
          }
        });
  }

  void bind(SandboxPods value) {
    this.pods = value;
  }

  void start() {
    factory.startAllRegisteredInformers();
  }

  boolean hasSynced() {
    return informer.hasSynced();
  }

  /** Queues a key for a sync; a key already queued is not queued twice. */
  void enqueue(String key) {
    if (TRACE) {
      trace.putIfAbsent(key, new long[] {System.nanoTime(), 0, 0, 0, 0});
    }
    synchronized (this) {
      if (running.contains(key)) {
        dirty.add(key);
        return;
      }
      if (!queued.add(key)) {
        return;
      }
    }
    workers.execute(() -> run(key));
  }

  private void run(String key) {
    mark(key, 1);
    synchronized (this) {
      queued.remove(key);
      running.add(key);
    }
    boolean again = false;
    try {
      again = !sync(key);
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "sync of " + key + " failed", e);
      again = true;
    } finally {
      boolean rerun;
      synchronized (this) {
        running.remove(key);
        rerun = dirty.remove(key);
      }
      if (again) {
        int n;
        synchronized (this) {
          n = failures.merge(key, 1, Integer::sum);
        }
        long delay = Math.min(30_000, 500L << Math.min(6, n - 1));
        retries.schedule(() -> enqueue(key), delay, TimeUnit.MILLISECONDS);
      } else {
        synchronized (this) {
          failures.remove(key);
        }
      }
      if (rerun) {
        enqueue(key);
      }
    }
  }

  /**
   * One key: finish the deletion of a previous generation, then create, update, delete or push the
   * status of the current one.
   *
   * @return false to be retried with backoff
   */
  private boolean sync(String key) {
    V1Pod last = gone.remove(key);
    if (last != null && pods.tracks(key, last.getMetadata().getUid())) {
      try {
        pods.deletePod(last);
      } catch (IllegalStateException e) {
        gone.putIfAbsent(key, last);
        LOG.warning(e.getMessage());
        return false;
      }
    }
    V1Pod pod = informer.getIndexer().getByKey(key);
    if (pod == null) {
      pushed.remove(key);
      trace.remove(key);
      return true;
    }
    String uid = pod.getMetadata().getUid();
    if (pod.getMetadata().getDeletionTimestamp() != null) {
      try {
        pods.deletePod(pod);
      } catch (IllegalStateException e) {
        LOG.warning(e.getMessage());
        return false;
      }
      return forceDelete(pod);
    }
    String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
    if (!pods.tracks(key, uid)) {
      if ("Failed".equals(phase) || "Succeeded".equals(phase)) {
        return true;
      }
      boolean adopted;
      try {
        adopted = pods.createPod(pod);
        mark(key, 2);
      } catch (IllegalArgumentException | IllegalStateException e) {
        if (pods.isQuarantined(key)) {
          LOG.info("pod " + key + " waits for claim verification: " + e.getMessage());
          return false;
        }
        boolean never = "Never".equals(pod.getSpec().getRestartPolicy());
        LOG.info("pod " + key + ": create failed: " + e.getMessage());
        events.warning(pod, "ProviderCreateFailed", String.valueOf(e.getMessage()));
        patchStatus(
            pod,
            null,
            Map.of(
                "phase",
                never ? "Failed" : "Pending",
                "reason",
                "ProviderFailed",
                "message",
                Objects.requireNonNullElse(e.getMessage(), e.toString())));
        return never;
      }
      // The status goes first: the event is sent once Running is written, so that it does not
      // compete with the status patch for the API server.
      boolean pushedStatus = pushStatus(key, pod);
      String id = pods.claimId(key).orElse("");
      events.normal(
          pod,
          adopted ? "SandboxAdopted" : "SandboxClaimed",
          adopted ? "adopted the preserved sandbox " + id : "claimed sandbox " + id);
      return pushedStatus;
    } else {
      pods.updatePod(pod);
    }
    return pushStatus(key, pod);
  }

  private boolean pushStatus(String key, V1Pod pod) {
    var rendered = pods.status(key);
    if (rendered.isEmpty()) {
      return true;
    }
    V1PodStatus want = rendered.get();
    V1PodStatus have = pod.getStatus() == null ? new V1PodStatus() : pod.getStatus();
    String claimId = pods.claimId(key).orElse(null);
    Map<String, String> ann = pod.getMetadata().getAnnotations();
    String haveId = ann == null ? null : ann.get(SandboxPods.ANNOTATION_CLAIM_ID);
    boolean same =
        Objects.equals(want.getPhase(), have.getPhase())
            && Objects.equals(want.getPodIP(), have.getPodIP())
            && Objects.equals(want.getReason(), have.getReason())
            && (claimId == null || claimId.equals(haveId));
    if (same) {
      return true;
    }
    String signature =
        pod.getMetadata().getUid()
            + "|"
            + want.getPhase()
            + "|"
            + want.getPodIP()
            + "|"
            + want.getReason()
            + "|"
            + claimId;
    if (signature.equals(pushed.get(key))) {
      return true;
    }
    mark(key, 3);
    boolean ok = patchStatus(pod, claimId, JSON.deserialize(JSON.serialize(want), Map.class));
    if (ok) {
      pushed.put(key, signature);
      if (TRACE) {
        long[] t = trace.get(key);
        if (t != null && t[4] == 0) {
          t[4] = System.nanoTime();
          LOG.info(
              String.format(
                  java.util.Locale.ROOT,
                  "vk-trace %s queue %.1f claim %.1f between %.1f patch %.1f total %.1f ms",
                  key,
                  (t[1] - t[0]) / 1e6,
                  (t[2] - t[1]) / 1e6,
                  (t[3] - t[2]) / 1e6,
                  (t[4] - t[3]) / 1e6,
                  (t[4] - t[0]) / 1e6));
        }
      }
    }
    return ok;
  }

  private void mark(String key, int i) {
    if (TRACE) {
      long[] t = trace.get(key);
      if (t != null && t[i] == 0) {
        t[i] = System.nanoTime();
      }
    }
  }

  private boolean patchStatus(V1Pod pod, String claimId, Map<?, ?> status) {
    Map<String, Object> body = new LinkedHashMap<>();
    if (claimId != null) {
      body.put("metadata", Map.of("annotations", Map.of(SandboxPods.ANNOTATION_CLAIM_ID, claimId)));
    }
    body.put("status", status);
    String json = JSON.serialize(body);
    String ns = pod.getMetadata().getNamespace();
    String name = pod.getMetadata().getName();
    try {
      limiter.acquire();
      // The answer (the whole Pod) is not decoded: nothing here reads it, and decoding it would
      // cost the node more than the write itself.
      var call = core.patchNamespacedPodStatus(name, ns, new V1Patch(json)).buildCall(null);
      var request =
          call.request()
              .newBuilder()
              .patch(
                  okhttp3.RequestBody.create(
                      json.getBytes(java.nio.charset.StandardCharsets.UTF_8),
                      okhttp3.MediaType.get(V1Patch.PATCH_FORMAT_STRATEGIC_MERGE_PATCH)))
              .build();
      try (var response = client.getHttpClient().newCall(request).execute()) {
        if (response.isSuccessful() || response.code() == 404) {
          return true;
        }
        String detail = response.body() == null ? "" : response.body().string();
        LOG.warning(
            "status of " + ns + "/" + name + ": HTTP " + response.code() + " " + detail.strip());
        return false;
      }
    } catch (ApiException e) {
      LOG.warning("status of " + ns + "/" + name + ": " + ApiErrors.describe(e));
      return false;
    } catch (java.io.IOException e) {
      LOG.warning("status of " + ns + "/" + name + ": " + e.getMessage());
      return false;
    }
  }

  private boolean forceDelete(V1Pod pod) {
    String ns = pod.getMetadata().getNamespace();
    String name = pod.getMetadata().getName();
    try {
      limiter.acquire();
      core.deleteNamespacedPod(name, ns)
          .gracePeriodSeconds(0)
          .body(
              new V1DeleteOptions()
                  .gracePeriodSeconds(0L)
                  .preconditions(new V1Preconditions().uid(pod.getMetadata().getUid())))
          .execute();
      return true;
    } catch (ApiException e) {
      if (e.getCode() == 404 || e.getCode() == 409) {
        return true;
      }
      LOG.warning(
          "cannot complete the deletion of " + ns + "/" + name + ": " + ApiErrors.describe(e));
      return false;
    } catch (RuntimeException e) {
      // The answer may be a Status rather than a Pod; the deletion went through.
      return true;
    }
  }

  /** Waits until the informer has listed the Pods once. */
  boolean awaitSynced(Duration timeout) throws InterruptedException {
    long end = System.nanoTime() + timeout.toNanos();
    while (!informer.hasSynced()) {
      if (System.nanoTime() > end) {
        return false;
      }
      Thread.sleep(50);
    }
    return true;
  }

  @Override
  public void close() {
    events.close();
    factory.stopAllRegisteredInformers();
    retries.shutdownNow();
    workers.shutdownNow();
  }

  String nodeName() {
    return nodeName;
  }
}
