package dev.runkora.sandboxd.engine;

import dev.runkora.sandboxd.engine.Metrics.Tier;
import dev.runkora.spi.core.ErrorKind;
import dev.runkora.spi.core.KoraException;
import dev.runkora.spi.runtime.MountSpec;
import dev.runkora.spi.runtime.RuntimeCapability;
import dev.runkora.spi.storage.AccessMode;
import dev.runkora.spi.storage.StorageClass;
import dev.runkora.spi.storage.WorkspaceRequest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The claim lifecycle: claim (warm hit or cold boot, then the {@code claims.json} commit before the
 * answer), renew, release and reap. Every change is committed to the file before it is reported; a
 * failed commit is rolled back.
 */
public final class Claims {

  private static final System.Logger LOG = System.getLogger(Claims.class.getName());

  private final ClaimStore store;
  private final Admission admission;
  private final PoolManager pools;
  private final Provisioner provisioner;
  private final Optional<StorageClass> storage;
  private final Metrics metrics;
  private final InstantSource clock;

  /** Creates the lifecycle over its parts. */
  public Claims(
      ClaimStore store,
      Admission admission,
      PoolManager pools,
      Provisioner provisioner,
      Optional<StorageClass> storage,
      Metrics metrics,
      InstantSource clock) {
    this.store = store;
    this.admission = admission;
    this.pools = pools;
    this.provisioner = provisioner;
    this.storage = storage;
    this.metrics = metrics;
    this.clock = clock;
  }

  /**
   * Claims a sandbox for a caller ({@code tenant} empty for root).
   *
   * @throws ApiException 429 at a cap or draining, 409/404/400 for an unservable key or bad mounts,
   *     500 when provisioning or the commit failed (nothing is left behind)
   */
  public Claim claim(ClaimRequest request, String tenant, boolean operator) {
    long start = System.nanoTime();
    PoolKey key = request.key();
    provisioner.checkServable(key);
    long lease = Lease.grant(request.ttlSeconds());
    admission.admit(tenant);
    boolean admitted = true;
    String vm = null;
    try {
      var mounts = resolveMounts(request, tenant, operator);
      Tier tier;
      var runtime = provisioner.runtime();
      boolean live =
          mounts.isEmpty() || runtime.capabilities().contains(RuntimeCapability.LIVE_MOUNT);
      Optional<String> warm = Optional.empty();
      if (live) {
        warm = pools.takeWarm(key);
      } else {
        pools.countArrival(key);
      }
      if (warm.isPresent()) {
        vm = warm.get();
        tier = Tier.WARM;
        for (var m : mounts) {
          mountLive(vm, m);
        }
      } else {
        vm = provisioner.create(key, specs(mounts));
        tier = Tier.COLD;
      }
      Instant now = clock.instant();
      var claim =
          new Claim(
              Ids.sandboxId(),
              vm,
              key,
              Ids.token(),
              now.plusSeconds(lease),
              lease,
              tenant,
              request.claimRef(),
              now,
              request.env(),
              mounts);
      long version = store.put(claim);
      try {
        store.commit(version);
      } catch (IOException e) {
        store.remove(claim);
        throw new ApiException(500, "cannot persist the claim: " + e.getMessage(), e);
      }
      metrics.claimed(tier, System.nanoTime() - start);
      vm = null;
      admitted = false;
      return claim;
    } finally {
      if (admitted) {
        admission.leave(tenant);
      }
      if (vm != null) {
        provisioner.destroy(vm);
      }
    }
  }

  private void mountLive(String vm, ClaimMount m) {
    try {
      provisioner.mount(vm, new MountSpec(Path.of(m.hostPath()), m.path(), m.readOnly()));
    } catch (KoraException e) {
      int status = e.kind() == ErrorKind.INVALID_ARGUMENT ? 400 : 500;
      throw new ApiException(status, "mount " + m.path() + ": " + e.getMessage(), e);
    }
  }

  private static List<MountSpec> specs(List<ClaimMount> mounts) {
    var specs = new ArrayList<MountSpec>();
    for (var m : mounts) {
      specs.add(new MountSpec(Path.of(m.hostPath()), m.path(), m.readOnly()));
    }
    return specs;
  }

  private List<ClaimMount> resolveMounts(ClaimRequest request, String tenant, boolean operator) {
    var result = new ArrayList<ClaimMount>();
    for (var m : request.mounts()) {
      if (!m.hostPath().isEmpty()) {
        if (!operator) {
          throw new ApiException(403, "host path mounts need the operator token");
        }
        Path host = Path.of(m.hostPath());
        if (!Files.exists(host)) {
          throw ApiException.badRequest("mount host_path " + m.hostPath() + " does not exist");
        }
        result.add(new ClaimMount(host.toString(), m.path(), m.readOnly(), ""));
      } else {
        var storageClass =
            storage.orElseThrow(
                () -> new ApiException(409, "workspace mounts need a storage plugin on this node"));
        String name = tenant.isEmpty() ? m.workspace() : tenant + "--" + m.workspace();
        try {
          var workspace =
              storageClass
                  .find(name)
                  .orElseGet(
                      () ->
                          storageClass.provision(
                              new WorkspaceRequest(
                                  name, m.sizeBytes(), AccessMode.READ_WRITE_ONCE)));
          result.add(
              new ClaimMount(workspace.path().toString(), m.path(), m.readOnly(), m.workspace()));
        } catch (IllegalArgumentException e) {
          throw ApiException.badRequest("workspace " + m.workspace() + ": " + e.getMessage());
        } catch (KoraException e) {
          int status =
              switch (e.kind()) {
                case INVALID_ARGUMENT, ALREADY_EXISTS -> 400;
                case UNSUPPORTED -> 409;
                case RESOURCE_EXHAUSTED -> 507;
                default -> 500;
              };
          throw new ApiException(status, "workspace " + m.workspace() + ": " + e.getMessage(), e);
        }
      }
    }
    return result;
  }

  /**
   * Resets a claim's lease to {@code ttlSeconds} from now (0 = default, clamped).
   *
   * @throws ApiException 404 when the claim is gone, 500 when the commit failed (rolled back)
   */
  public Claim renew(Claim claim, long ttlSeconds) {
    long lease = Lease.grant(ttlSeconds);
    var updated = claim.renewed(clock.instant().plusSeconds(lease), lease);
    long version = store.replace(claim, updated);
    if (version < 0) {
      throw ApiException.unknownSandbox();
    }
    try {
      store.commit(version);
    } catch (IOException e) {
      store.replace(updated, claim);
      throw new ApiException(500, "cannot persist the renewal: " + e.getMessage(), e);
    }
    return updated;
  }

  /**
   * Releases a claim and destroys its sandbox.
   *
   * @throws ApiException 404 when already gone, 500 when the commit failed (rolled back)
   */
  public void release(Claim claim) {
    long version = store.remove(claim);
    if (version < 0) {
      throw ApiException.unknownSandbox();
    }
    try {
      store.commit(version);
    } catch (IOException e) {
      store.put(claim);
      throw new ApiException(500, "cannot persist the release: " + e.getMessage(), e);
    }
    admission.leave(claim.tenant());
    metrics.released();
    provisioner.destroy(claim.vmName());
  }

  /**
   * Releases every claim and destroys its sandbox, for a daemon that must leave nothing behind when
   * it stops. The file is committed first (empty of these claims); a failed commit is logged and
   * the sandboxes are destroyed all the same, so that the next start drops their claims.
   *
   * @return how many claims were released
   */
  public int releaseAll() {
    var released = new ArrayList<Claim>();
    for (Claim claim : store.all()) {
      if (store.remove(claim) >= 0) {
        released.add(claim);
      }
    }
    try {
      store.commit(store.version());
    } catch (IOException e) {
      LOG.log(System.Logger.Level.WARNING, "cannot persist the release of every claim", e);
    }
    try (var workers = java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor()) {
      for (Claim claim : released) {
        admission.leave(claim.tenant());
        metrics.released();
        workers.execute(() -> provisioner.destroy(claim.vmName()));
      }
    }
    return released.size();
  }

  /** Destroys every claim past its deadline; returns how many. */
  public int reap() {
    Instant now = clock.instant();
    var expired = new ArrayList<Claim>();
    long version = -1;
    for (Claim claim : store.all()) {
      if (!claim.deadline().isAfter(now)) {
        long v = store.remove(claim);
        if (v >= 0) {
          expired.add(claim);
          version = Math.max(version, v);
        }
      }
    }
    if (expired.isEmpty()) {
      return 0;
    }
    try {
      store.commit(version);
    } catch (IOException e) {
      LOG.log(System.Logger.Level.WARNING, "cannot persist reaped claims; retrying later", e);
      expired.forEach(store::put);
      return 0;
    }
    for (Claim claim : expired) {
      admission.leave(claim.tenant());
      metrics.reaped();
      provisioner.destroy(claim.vmName());
    }
    return expired.size();
  }
}
