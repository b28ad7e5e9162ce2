package dev.runkora.vk;

import dev.runkora.api.ApiException;
import dev.runkora.api.ClaimRequest;
import dev.runkora.api.ClaimResponse;
import dev.runkora.api.PoolKey;
import dev.runkora.api.SandboxRow;
import io.kubernetes.client.openapi.models.V1ContainerState;
import io.kubernetes.client.openapi.models.V1ContainerStateRunning;
import io.kubernetes.client.openapi.models.V1ContainerStateTerminated;
import io.kubernetes.client.openapi.models.V1ContainerStatus;
import io.kubernetes.client.openapi.models.V1HostIP;
import io.kubernetes.client.openapi.models.V1OwnerReference;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodCondition;
import io.kubernetes.client.openapi.models.V1PodIP;
import io.kubernetes.client.openapi.models.V1PodStatus;
import java.io.IOException;
import java.time.Clock;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The pod provider: one Pod key ({@code namespace/name}) maps to at most one sandboxd claim. Holds
 * the claims table (settled, tentative and quarantined rows, reference §8), the Pods it was handed,
 * and renders Pod status from its own table only (no control-loop read hits the API server or
 * sandboxd).
 *
 * <p>Thread-safety: the table is guarded by this object's monitor; sandboxd calls run outside it.
 * The caller serializes calls for one key (the pod controller does); calls for different keys run
 * concurrently.
 */
final class SandboxPods {
  private static final Logger LOG = Logger.getLogger(SandboxPods.class.getName());

  /** {@code -Dkora.vk.trace=true}: logs per claim how long sandboxd and the state file took. */
  private static final boolean TRACE = Boolean.getBoolean("kora.vk.trace");

  static final String ANNOTATION_RUNTIME = "sandbox.cocoonstack.io/runtime";
  static final String ANNOTATION_TEMPLATE = "sandbox.cocoonstack.io/template";
  static final String ANNOTATION_NET = "sandbox.cocoonstack.io/net";
  static final String ANNOTATION_SIZE = "sandbox.cocoonstack.io/size";
  static final String ANNOTATION_TTL = "sandbox.cocoonstack.io/ttl-seconds";
  static final String ANNOTATION_CLAIM_ID = "sandbox.cocoonstack.io/claim-id";
  static final String REASON_LEASE_EXPIRED = "SandboxLeaseExpired";
  static final long DEFAULT_TTL_SECONDS = 86_400;

  private final SandboxdPort sandboxd;
  private final ClaimsFile file;
  private final Owners.Reader owners;
  private final Consumer<String> statusChanged;
  private final Clock clock;
  private final ExecutorService detached =
      Executors.newCachedThreadPool(
          r -> {
            Thread t = new Thread(r, "vk-release");
            t.setDaemon(true);
            return t;
          });

  private final Map<String, Claim> claims = new LinkedHashMap<>();
  private final Set<String> tentative = new HashSet<>();
  private final Set<String> quarantined = new HashSet<>();
  private final Map<String, V1Pod> pods = new HashMap<>();
  private final Map<String, String> orphanVerdicts = new HashMap<>();
  // Owner re-check of preserved claims: key -> [next check (epoch ms), current backoff (ms)].
  private final Map<String, long[]> recheck = new HashMap<>();
  static final long RECHECK_FIRST_MS = 10_000;
  static final long RECHECK_MAX_MS = 600_000;

  /**
   * @param owners reads a Pod's controller owner; null = preserve every controller-owned claim
   * @param statusChanged told the key of a Pod whose rendered status changed (the push)
   */
  SandboxPods(
      SandboxdPort sandboxd,
      ClaimsFile file,
      Owners.Reader owners,
      Consumer<String> statusChanged,
      Clock clock) {
    this.sandboxd = sandboxd;
    this.file = file;
    this.owners = owners;
    this.statusChanged = statusChanged;
    this.clock = clock;
  }

  static String key(V1Pod pod) {
    return pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
  }

  // ---- start-up and background loops ----

  /**
   * Loads the state file, quarantines every row, verifies them against the listing and writes the
   * table back.
   *
   * @throws IllegalStateException when the file is malformed or cannot be written
   */
  void start() {
    Map<String, Claim> loaded = file.load();
    synchronized (this) {
      claims.putAll(loaded);
      quarantined.addAll(loaded.keySet());
      long first = clock.millis() + RECHECK_FIRST_MS;
      loaded.forEach(
          (k, c) -> {
            if (c.owner().isPresent()) {
              recheck.put(k, new long[] {first, RECHECK_FIRST_MS});
            }
          });
    }
    if (!loaded.isEmpty()) {
      LOG.info("loaded " + loaded.size() + " claims from " + file.path() + "; verifying");
    }
    verify();
    try {
      persist();
    } catch (IOException e) {
      throw new IllegalStateException(
          "claims state is not writable: "
              + file.path()
              + ": "
              + e.getMessage()
              + "; make its directory writable by this user (the DaemonSet image runs as UID"
              + " 65532) or point --state-path (VK_STATE_PATH) elsewhere",
          e);
    }
  }

  /**
   * Verifies the quarantined rows against {@code GET /v1/sandboxes}: listed → settled (deadline
   * backfilled); not listed → dropped; a failed listing changes nothing.
   *
   * @return whether anything is still quarantined
   */
  boolean verify() {
    synchronized (this) {
      if (quarantined.isEmpty()) {
        return false;
      }
    }
    List<SandboxRow> rows;
    try {
      rows = sandboxd.list();
    } catch (ApiException e) {
      LOG.warning("claim verification: cannot list sandboxd (" + e.getMessage() + "); will retry");
      return true;
    }
    Map<String, SandboxRow> byId = new HashMap<>();
    rows.forEach(r -> byId.put(r.id(), r));
    List<String> vouched = new ArrayList<>();
    boolean dropped = false;
    synchronized (this) {
      for (String key : List.copyOf(quarantined)) {
        Claim c = claims.get(key);
        SandboxRow row = c == null ? null : byId.get(c.id());
        if (row != null) {
          if (!row.deadline().equals(Instant.EPOCH)) {
            claims.put(key, c.withDeadline(Optional.of(row.deadline())));
          }
          vouched.add(key);
        } else if (!tentative.contains(key)) {
          claims.remove(key);
          dropped = true;
          LOG.info("claim verification: " + key + " is no longer held by sandboxd; dropped");
        }
        quarantined.remove(key);
      }
    }
    if (dropped || !vouched.isEmpty()) {
      try {
        persist();
      } catch (IOException e) {
        LOG.warning("claims state write failed after verification: " + e.getMessage());
      }
    }
    vouched.forEach(statusChanged);
    return false;
  }

  /**
   * kora's lease renewal ({@code --renew-leases}): a settled claim whose Pod is alive (not being
   * deleted) and whose lease has less than half of its length left is renewed for the Pod's {@code
   * ttl-seconds} again, so a Pod can outlive one lease. A failed renewal is logged and tried again
   * next tick; the lease watch still publishes Failed if the lease ends.
   */
  void renewLeases() {
    Instant now = clock.instant();
    Map<String, Claim> due = new HashMap<>();
    Map<String, Long> ttls = new HashMap<>();
    synchronized (this) {
      claims.forEach(
          (k, c) -> {
            V1Pod pod = pods.get(k);
            if (pod == null
                || pod.getMetadata().getDeletionTimestamp() != null
                || tentative.contains(k)
                || quarantined.contains(k)
                || c.deadline().isEmpty()
                || c.expiredAt(now)) {
              return;
            }
            long ttl;
            try {
              ttl = ttlSeconds(k, annotations(pod).get(ANNOTATION_TTL));
            } catch (IllegalArgumentException e) {
              return;
            }
            long lengthSeconds = ttl == 0 ? 300 : ttl;
            if (c.deadline().get().isBefore(now.plusSeconds(lengthSeconds / 2))) {
              due.put(k, c);
              ttls.put(k, ttl);
            }
          });
    }
    boolean changed = false;
    for (var e : due.entrySet()) {
      Claim c = e.getValue();
      try {
        Instant deadline = sandboxd.renew(c.id(), c.token(), ttls.get(e.getKey()));
        synchronized (this) {
          Claim current = claims.get(e.getKey());
          if (current != null && current.id().equals(c.id())) {
            claims.put(e.getKey(), current.withDeadline(Optional.of(deadline)));
            changed = true;
          }
        }
      } catch (ApiException ex) {
        LOG.warning("lease renewal of " + c.id() + " for " + e.getKey() + ": " + ex.getMessage());
      }
    }
    if (changed) {
      try {
        persist();
      } catch (IOException ex) {
        LOG.warning("claims state write failed after lease renewal: " + ex.getMessage());
      }
    }
  }

  /**
   * The lease watch: settled claims with a Pod and a past deadline are confirmed with a listing;
   * still listed → deadline refreshed; gone → Failed pushed (the row stays until the Pod goes).
   */
  void leaseWatch() {
    Instant now = clock.instant();
    Map<String, Claim> expired = new HashMap<>();
    synchronized (this) {
      claims.forEach(
          (k, c) -> {
            if (pods.containsKey(k)
                && !tentative.contains(k)
                && !quarantined.contains(k)
                && c.expiredAt(now)) {
              expired.put(k, c);
            }
          });
    }
    if (expired.isEmpty()) {
      return;
    }
    List<SandboxRow> rows;
    try {
      rows = sandboxd.list();
    } catch (ApiException e) {
      LOG.warning("lease watch: cannot list sandboxd (" + e.getMessage() + "); publishing nothing");
      return;
    }
    Map<String, SandboxRow> byId = new HashMap<>();
    rows.forEach(r -> byId.put(r.id(), r));
    List<String> failed = new ArrayList<>();
    synchronized (this) {
      expired.forEach(
          (k, c) -> {
            Claim current = claims.get(k);
            if (current == null || !current.id().equals(c.id())) {
              return; // a replacement took the key: never inherit a predecessor's terminal status
            }
            SandboxRow row = byId.get(c.id());
            if (row != null) {
              claims.put(k, c.withDeadline(Optional.of(row.deadline())));
            } else {
              failed.add(k);
            }
          });
    }
    failed.forEach(
        k -> {
          LOG.info("lease watch: the sandbox of " + k + " is gone after its deadline; Failed");
          statusChanged.accept(k);
        });
  }

  /** The orphan audit: logs verdict transitions, never releases; a failed listing is skipped. */
  void orphanScan() {
    List<SandboxRow> rows;
    try {
      rows = sandboxd.list();
    } catch (ApiException e) {
      LOG.warning("orphan scan: cannot list sandboxd (" + e.getMessage() + "); cycle skipped");
      return;
    }
    Map<String, String> verdicts = new HashMap<>();
    Set<String> held = new HashSet<>();
    synchronized (this) {
      claims.values().forEach(c -> held.add(c.id()));
    }
    Set<String> listed = new HashSet<>();
    for (SandboxRow r : rows) {
      listed.add(r.id());
      if (!held.contains(r.id())) {
        verdicts.put(r.id(), r.claimRef().isEmpty() ? "orphan" : "external");
      }
    }
    for (String id : held) {
      if (!listed.contains(id)) {
        verdicts.put(id, "stale");
      }
    }
    synchronized (this) {
      verdicts.forEach(
          (id, v) -> {
            if (!v.equals(orphanVerdicts.get(id))) {
              LOG.info("orphan scan: " + id + " is " + v + " (audit only; nothing released)");
            }
          });
      orphanVerdicts.clear();
      orphanVerdicts.putAll(verdicts);
    }
  }

  synchronized Map<String, String> orphanVerdicts() {
    return Map.copyOf(orphanVerdicts);
  }

  // ---- the pod lifecycle ----

  /** Whether this provider holds the Pod generation {@code uid} under {@code key}. */
  synchronized boolean tracks(String key, String uid) {
    V1Pod p = pods.get(key);
    return p != null && uid.equals(p.getMetadata().getUid());
  }

  synchronized boolean isQuarantined(String key) {
    return quarantined.contains(key);
  }

  /**
   * CreatePod (reference §5): adopts a settled claim for the key in place, or claims a sandbox.
   *
   * @throws IllegalArgumentException for a Pod that breaks the contract (no claim was made)
   * @return true when the Pod adopted a preserved claim, false when a sandbox was claimed
   * @throws IllegalStateException when the claim cannot be made or kept now (retry later)
   */
  boolean createPod(V1Pod pod) {
    String key = key(pod);
    Map<String, String> ann = annotations(pod);
    String runtime = ann.getOrDefault(ANNOTATION_RUNTIME, "");
    if (!runtime.isEmpty() && !runtime.equals("sandboxd")) {
      throw new IllegalArgumentException(
          "pod " + key + " requests runtime \"" + runtime + "\"; this node serves \"sandboxd\"");
    }
    if (isQuarantined(key) && verify()) {
      throw new IllegalStateException(
          "a claim from a previous run is unverified and sandboxd cannot be listed; refusing to"
              + " claim over a possibly live sandbox");
    }
    settleExpired(key);
    synchronized (this) {
      Claim c = claims.get(key);
      if (c != null && !tentative.contains(key) && !quarantined.contains(key)) {
        claims.put(key, c.withPodUid(pod.getMetadata().getUid()));
        recheck.remove(key);
        pods.put(key, pod);
        adopted(key);
        return true;
      }
    }
    clearStranded(key);
    String template = ann.getOrDefault(ANNOTATION_TEMPLATE, "");
    if (template.isEmpty() && pod.getSpec() != null && !pod.getSpec().getContainers().isEmpty()) {
      // kora: like the operator's admission, the first container's image names the template, so
      // any Pod the scheduler places here runs.
      String image = pod.getSpec().getContainers().get(0).getImage();
      template = image == null ? "" : image;
    }
    if (template.isEmpty()) {
      throw new IllegalArgumentException(
          "pod " + key + ": missing sandbox.cocoonstack.io/template annotation");
    }
    long ttl = ttlSeconds(key, ann.get(ANNOTATION_TTL));
    ClaimRequest request =
        ClaimRequest.of(
                new PoolKey(
                    template,
                    ann.getOrDefault(ANNOTATION_NET, ""),
                    ann.getOrDefault(ANNOTATION_SIZE, "")))
            .withTtlSeconds(ttl)
            .withClaimRef(key);
    ClaimResponse response;
    long claiming = System.nanoTime();
    try {
      response = sandboxd.claim(request);
    } catch (ApiException e) {
      throw new IllegalStateException(
          (e.status() == 429 ? "sandboxd has no warm capacity: " : "sandboxd refused the claim: ")
              + e.getMessage(),
          e);
    }
    if (response.isRedirect()) {
      throw new IllegalStateException(
          "sandboxd node at capacity (it redirected to " + response.redirect() + ")");
    }
    long claimed = System.nanoTime();
    Instant now = clock.instant();
    Claim claim =
        new Claim(
            response.id(),
            response.token(),
            response.ownerAddr(),
            pod.getMetadata().getUid(),
            now,
            response.deadline().equals(Instant.EPOCH)
                ? Optional.empty()
                : Optional.of(response.deadline()));
    synchronized (this) {
      claims.put(key, claim);
      tentative.add(key);
      pods.put(key, pod);
    }
    try {
      persist(key);
    } catch (IOException e) {
      Future<?> undo = detached.submit(() -> sandboxd.release(claim.id(), claim.token()));
      try {
        undo.get(10, TimeUnit.SECONDS);
        withdraw(key, claim);
        throw new IllegalStateException(
            "claim " + claim.id() + " returned: cannot persist it: " + e.getMessage(), e);
      } catch (java.util.concurrent.ExecutionException ee) {
        if (ee.getCause() instanceof ApiException ae && ae.isNotFound()) {
          withdraw(key, claim);
          throw new IllegalStateException("cannot persist claim: " + e.getMessage(), e);
        }
        throw new IllegalStateException(
            "cannot persist claim ("
                + e.getMessage()
                + ") and cannot return it ("
                + ee.getCause().getMessage()
                + "); kept in memory",
            e);
      } catch (java.util.concurrent.TimeoutException | InterruptedException te) {
        throw new IllegalStateException(
            "cannot persist claim (" + e.getMessage() + ") and its return timed out", e);
      }
    }
    if (TRACE) {
      LOG.info(
          String.format(
              java.util.Locale.ROOT,
              "vk-claim %s sandboxd %.1f state file %.1f ms",
              key,
              (claimed - claiming) / 1e6,
              (System.nanoTime() - claimed) / 1e6));
    }
    LOG.fine("claimed " + claim.id() + " for " + key);
    statusChanged.accept(key);
    return false;
  }

  private void adopted(String key) {
    try {
      persist();
    } catch (IOException e) {
      LOG.warning("claims state write failed after adopting " + key + ": " + e.getMessage());
    }
    LOG.info("pod " + key + " adopted its preserved claim");
    statusChanged.accept(key);
  }

  private void settleExpired(String key) {
    Claim c;
    synchronized (this) {
      c = claims.get(key);
      if (c == null
          || tentative.contains(key)
          || quarantined.contains(key)
          || !c.expiredAt(clock.instant())) {
        return;
      }
    }
    List<SandboxRow> rows;
    try {
      rows = sandboxd.list();
    } catch (ApiException e) {
      throw new IllegalStateException(
          "the claim of " + key + " is past its deadline and sandboxd cannot be listed", e);
    }
    Optional<SandboxRow> row = rows.stream().filter(r -> r.id().equals(c.id())).findFirst();
    synchronized (this) {
      if (row.isPresent()) {
        claims.put(key, c.withDeadline(Optional.of(row.get().deadline())));
      } else {
        claims.remove(key);
      }
    }
  }

  private void clearStranded(String key) {
    Claim c;
    synchronized (this) {
      if (!tentative.contains(key)) {
        return;
      }
      c = claims.get(key);
    }
    try {
      sandboxd.release(c.id(), c.token());
    } catch (ApiException e) {
      if (!e.isNotFound()) {
        throw new IllegalStateException("cannot return a stranded claim of " + key, e);
      }
    }
    withdraw(key, c);
  }

  private synchronized void withdraw(String key, Claim c) {
    Claim current = claims.get(key);
    if (current != null && current.id().equals(c.id())) {
      claims.remove(key);
      tentative.remove(key);
      quarantined.remove(key);
      recheck.remove(key);
    }
  }

  private static String nonNull(String s) {
    return s == null ? "" : s;
  }

  /**
   * The owner re-check (reference §7.3): asks about the recorded owner of every Pod-less preserved
   * claim, first 10 s after the preserve, then doubling to 10 min, and releases the claim once the
   * verdict table says the owner is gone. Needed because a namespace deletion removes Pods and
   * their owner independently. A replacement Pod that adopts the claim ends it.
   */
  void recheckOwners() {
    long now = clock.millis();
    Map<String, Claim> due = new HashMap<>();
    synchronized (this) {
      recheck.forEach(
          (k, state) -> {
            Claim c = claims.get(k);
            if (state[0] <= now
                && c != null
                && c.owner().isPresent()
                && !pods.containsKey(k)
                && !quarantined.contains(k)
                && !tentative.contains(k)) {
              due.put(k, c);
            }
          });
    }
    boolean changed = false;
    for (var e : due.entrySet()) {
      String key = e.getKey();
      Claim c = e.getValue();
      Claim.Owner o = c.owner().orElseThrow();
      String namespace = key.substring(0, key.indexOf('/'));
      Owners.Verdict verdict =
          Owners.decide(namespace, o.apiVersion(), o.kind(), o.name(), o.uid(), true, owners);
      if (!verdict.release()) {
        synchronized (this) {
          long[] state = recheck.get(key);
          if (state != null) {
            state[1] = Math.min(RECHECK_MAX_MS, state[1] * 2);
            state[0] = now + state[1];
          }
        }
        continue;
      }
      try {
        sandboxd.release(c.id(), c.token());
      } catch (ApiException ex) {
        if (!ex.isNotFound()) {
          LOG.warning(
              "owner re-check: cannot release " + c.id() + " of " + key + ": " + ex.getMessage());
          continue;
        }
      }
      synchronized (this) {
        if (!pods.containsKey(key)) {
          withdraw(key, c);
          changed = true;
        }
      }
      LOG.info("owner re-check: claim " + c.id() + " of " + key + " released: " + verdict.reason());
    }
    if (changed) {
      try {
        persist();
      } catch (IOException ex) {
        LOG.warning("claims state write failed after the owner re-check: " + ex.getMessage());
      }
    }
  }

  static long ttlSeconds(String key, String value) {
    if (value == null || value.isEmpty()) {
      return DEFAULT_TTL_SECONDS;
    }
    try {
      long ttl = Long.parseLong(value.strip());
      if (ttl >= 0) {
        return ttl;
      }
    } catch (NumberFormatException e) {
      // fall through
    }
    throw new IllegalArgumentException(
        "pod " + key + ": invalid sandbox.cocoonstack.io/ttl-seconds=\"" + value + "\"");
  }

  /** UpdatePod: a stale UID is ignored; otherwise only the stored object is replaced. */
  synchronized void updatePod(V1Pod pod) {
    String key = key(pod);
    V1Pod known = pods.get(key);
    if (known != null && known.getMetadata().getUid().equals(pod.getMetadata().getUid())) {
      pods.put(key, pod);
    }
  }

  /**
   * DeletePod (reference §7): the stale-UID guard, then the ownership verdict.
   *
   * @return false when nothing was done because the request carried a stale UID
   * @throws IllegalStateException when a release failed (everything is kept; retry)
   */
  boolean deletePod(V1Pod pod) {
    String key = key(pod);
    String uid = pod.getMetadata().getUid();
    Claim c;
    synchronized (this) {
      V1Pod known = pods.get(key);
      if (known != null && uid != null && !uid.equals(known.getMetadata().getUid())) {
        LOG.info("delete of " + key + " carries a stale UID; ignored");
        return false;
      }
      c = claims.get(key);
      if (c == null) {
        pods.remove(key);
        return true;
      }
    }
    V1OwnerReference controller = controllerOf(pod);
    Owners.Verdict verdict =
        controller == null
            ? Owners.decide(key, null, null, null, null, false, owners)
            : Owners.decide(
                pod.getMetadata().getNamespace(),
                controller.getApiVersion(),
                controller.getKind(),
                controller.getName(),
                controller.getUid(),
                true,
                owners);
    if (!verdict.release()) {
      synchronized (this) {
        pods.remove(key);
        Claim current = claims.get(key);
        if (controller != null && current != null && current.id().equals(c.id())) {
          claims.put(
              key,
              current.withOwner(
                  Optional.of(
                      new Claim.Owner(
                          nonNull(controller.getApiVersion()),
                          nonNull(controller.getKind()),
                          nonNull(controller.getName()),
                          nonNull(controller.getUid())))));
          recheck.put(key, new long[] {clock.millis() + RECHECK_FIRST_MS, RECHECK_FIRST_MS});
        }
      }
      try {
        persist();
      } catch (IOException e) {
        LOG.warning("claims state write failed after preserving " + key + ": " + e.getMessage());
      }
      LOG.info("pod " + key + " deleted; claim " + c.id() + " preserved: " + verdict.reason());
      return true;
    }
    try {
      sandboxd.release(c.id(), c.token());
    } catch (ApiException e) {
      if (!e.isNotFound()) {
        throw new IllegalStateException(
            "cannot release " + c.id() + " of " + key + ": " + e.getMessage(), e);
      }
    }
    synchronized (this) {
      withdraw(key, c);
      pods.remove(key);
    }
    LOG.info("pod " + key + " deleted; claim " + c.id() + " released: " + verdict.reason());
    try {
      persist();
    } catch (IOException e) {
      LOG.warning("claims state write failed after a release: " + e.getMessage());
    }
    return true;
  }

  static V1OwnerReference controllerOf(V1Pod pod) {
    List<V1OwnerReference> refs = pod.getMetadata().getOwnerReferences();
    if (refs == null) {
      return null;
    }
    return refs.stream()
        .filter(r -> Boolean.TRUE.equals(r.getController()))
        .findFirst()
        .orElse(null);
  }

  private static Map<String, String> annotations(V1Pod pod) {
    Map<String, String> a = pod.getMetadata().getAnnotations();
    return a == null ? Map.of() : a;
  }

  // ---- status ----

  /** The claim id of the key, when settled. */
  synchronized Optional<String> claimId(String key) {
    Claim c = claims.get(key);
    if (c == null || tentative.contains(key) || quarantined.contains(key)) {
      return Optional.empty();
    }
    return Optional.of(c.id());
  }

  /** The Pods this provider holds. */
  synchronized List<V1Pod> pods() {
    return List.copyOf(pods.values());
  }

  synchronized Optional<V1Pod> pod(String key) {
    return Optional.ofNullable(pods.get(key));
  }

  /** Claim ids to their {@code owner_addr}, for the inventory. */
  synchronized Map<String, String> addressesById() {
    Map<String, String> m = new HashMap<>();
    claims.values().forEach(c -> m.put(c.id(), c.address()));
    return m;
  }

  /** The settled claim of a key and its sandbox token, for exec. */
  synchronized Optional<Claim> settled(String key) {
    Claim c = claims.get(key);
    if (c == null || tentative.contains(key) || quarantined.contains(key)) {
      return Optional.empty();
    }
    return Optional.of(c);
  }

  /** The status of the Pod held under {@code key}, rendered from the table (reference §6). */
  Optional<V1PodStatus> status(String key) {
    V1Pod pod;
    Claim c;
    boolean pending;
    synchronized (this) {
      pod = pods.get(key);
      if (pod == null) {
        return Optional.empty();
      }
      c = claims.get(key);
      pending = c == null || tentative.contains(key) || quarantined.contains(key);
    }
    if (pending) {
      V1PodStatus s = pod.getStatus() == null ? new V1PodStatus() : pod.getStatus();
      return Optional.of(copy(s).phase("Pending"));
    }
    return Optional.of(render(pod, c, clock.instant()));
  }

  static V1PodStatus render(V1Pod pod, Claim c, Instant now) {
    OffsetDateTime started = time(c.claimedAt());
    V1PodStatus s = new V1PodStatus().startTime(started);
    List<V1ContainerStatus> containers = new ArrayList<>();
    if (c.expiredAt(now)) {
      OffsetDateTime end = time(c.deadline().orElseThrow());
      s.phase("Failed")
          .reason(REASON_LEASE_EXPIRED)
          .message(
              "sandbox lease ended at "
                  + dev.runkora.common.json.Rfc3339.format(c.deadline().get())
                  + "; the microVM is reaped at the deadline");
      for (var spec : pod.getSpec().getContainers()) {
        containers.add(
            new V1ContainerStatus()
                .name(spec.getName())
                .image(spec.getImage() == null ? "" : spec.getImage())
                .imageID("sandboxd://" + c.id())
                .ready(false)
                .restartCount(0)
                .state(
                    new V1ContainerState()
                        .terminated(
                            new V1ContainerStateTerminated()
                                .exitCode(1)
                                .reason(REASON_LEASE_EXPIRED)
                                .finishedAt(end)
                                .startedAt(started))));
      }
      return s.containerStatuses(containers);
    }
    s.phase("Running");
    String host = c.host();
    if (!host.isEmpty()) {
      s.hostIP(host).podIP(host).podIPs(List.of(new V1PodIP().ip(host)));
      s.hostIPs(List.of(new V1HostIP().ip(host)));
    }
    s.conditions(List.of(condition("Initialized"), condition("Ready"), condition("PodScheduled")));
    for (var spec : pod.getSpec().getContainers()) {
      containers.add(
          new V1ContainerStatus()
              .name(spec.getName())
              .image(spec.getImage() == null ? "" : spec.getImage())
              .imageID("sandboxd://" + c.id())
              .containerID("sandboxd://" + c.id())
              .ready(true)
              .started(true)
              .restartCount(0)
              .state(
                  new V1ContainerState()
                      .running(new V1ContainerStateRunning().startedAt(started))));
    }
    return s.containerStatuses(containers);
  }

  private static V1PodCondition condition(String type) {
    return new V1PodCondition().type(type).status("True");
  }

  static OffsetDateTime time(Instant i) {
    return OffsetDateTime.ofInstant(
        i.truncatedTo(java.time.temporal.ChronoUnit.SECONDS), ZoneOffset.UTC);
  }

  private static V1PodStatus copy(V1PodStatus s) {
    return new V1PodStatus()
        .phase(s.getPhase())
        .conditions(s.getConditions())
        .message(s.getMessage())
        .reason(s.getReason())
        .hostIP(s.getHostIP())
        .podIP(s.getPodIP())
        .podIPs(s.getPodIPs())
        .startTime(s.getStartTime())
        .containerStatuses(s.getContainerStatuses());
  }

  // ---- persistence ----

  private void persist() throws IOException {
    persist(null);
  }

  /** Writes the durable rows, plus the tentative row being committed ({@code commitKey}). */
  private void persist(String commitKey) throws IOException {
    file.save(
        () -> {
          synchronized (this) {
            Map<String, Claim> durable = new LinkedHashMap<>(claims);
            for (String k : tentative) {
              if (!k.equals(commitKey)) {
                durable.remove(k);
              }
            }
            return durable;
          }
        },
        () -> {
          if (commitKey != null) {
            synchronized (this) {
              tentative.remove(commitKey);
            }
          }
        });
  }

  /** The whole table, tentative and quarantined rows included; for tests. */
  synchronized Map<String, Claim> table() {
    return Map.copyOf(claims);
  }

  void close() {
    detached.shutdownNow();
  }

  static void logAt(Level level, String message) {
    LOG.log(level, message);
  }
}
