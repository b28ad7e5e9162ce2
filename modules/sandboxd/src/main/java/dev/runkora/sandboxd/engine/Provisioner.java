package dev.runkora.sandboxd.engine;

import dev.runkora.spi.core.KoraException;
import dev.runkora.spi.runtime.MountSpec;
import dev.runkora.spi.runtime.RuntimeCapability;
import dev.runkora.spi.runtime.SandboxRuntime;
import dev.runkora.spi.runtime.SandboxSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Semaphore;

/**
 * Makes and destroys runtime sandboxes for pool keys: resolves the template, applies the size
 * tier's limits (those the runtime enforces), names the sandbox with the daemon's prefix.
 */
public final class Provisioner {

  private static final System.Logger LOG = System.getLogger(Provisioner.class.getName());

  /** Platform threads for the runtime calls of virtual threads (see {@link #offCarrier}). */
  private static final java.util.concurrent.ExecutorService RUNTIME_CALLS =
      java.util.concurrent.Executors.newCachedThreadPool(
          Thread.ofPlatform().daemon().name("sandboxd-runtime-", 0).factory());

  private final SandboxRuntime runtime;
  private final TemplateResolver templates;
  private final Semaphore budget;
  private final SandboxLogs logs = new SandboxLogs();

  /**
   * Creates a provisioner.
   *
   * @param concurrency how many sandboxes are made at once, by refills and cold claims together (a
   *     burst of cold claims queues instead of overloading the host)
   */
  public Provisioner(SandboxRuntime runtime, TemplateResolver templates, int concurrency) {
    this.runtime = runtime;
    this.templates = templates;
    this.budget = new Semaphore(concurrency, true);
  }

  /**
   * Runs a runtime call that makes, changes or removes a sandbox. On a virtual thread (an HTTP
   * handler: a cold claim, a mount at claim time, a release) the call runs on a platform thread
   * while the caller waits, because the runtime's process spawns and native mount calls pin a
   * virtual thread to its carrier, and the few carriers (one per core) serve every other request.
   * The caller waits for the outcome even when interrupted, so that a made sandbox is never lost
   * track of.
   */
  private static void offCarrier(Runnable call) {
    if (!Thread.currentThread().isVirtual()) {
      call.run();
      return;
    }
    var done = java.util.concurrent.CompletableFuture.runAsync(call, RUNTIME_CALLS);
    boolean interrupted = false;
    try {
      while (true) {
        try {
          done.get();
          return;
        } catch (InterruptedException e) {
          interrupted = true;
        } catch (java.util.concurrent.ExecutionException e) {
          if (e.getCause() instanceof RuntimeException r) {
            throw r;
          }
          if (e.getCause() instanceof Error error) {
            throw error;
          }
          throw new IllegalStateException(e.getCause());
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Returns the runtime. */
  public SandboxRuntime runtime() {
    return runtime;
  }

  /** Returns the output logs of the sandboxes, each dropped when its sandbox is destroyed. */
  public SandboxLogs logs() {
    return logs;
  }

  /** Returns the template resolver. */
  public TemplateResolver templates() {
    return templates;
  }

  /**
   * Checks that this node can serve a key at all, before a slot or a sandbox is spent on it.
   *
   * @throws ApiException 409 for {@code egress} on a runtime without outbound network
   */
  public void checkServable(PoolKey key) {
    if (key.net().equals("egress")
        && !runtime.capabilities().contains(RuntimeCapability.NETWORK_EGRESS)) {
      throw new ApiException(409, "net egress is not available on this node");
    }
  }

  /**
   * Creates and starts a sandbox for a key, with extra mounts bound at creation.
   *
   * @return the runtime name of the new sandbox
   * @throws ApiException 404/400 for a bad template, 409 for an unservable net, 500 when the
   *     runtime fails (nothing is left behind)
   */
  public String create(PoolKey key, List<MountSpec> extraMounts) {
    checkServable(key);
    var root = templates.root(key.template());
    var mounts = new ArrayList<MountSpec>();
    for (var bind : root.binds()) {
      mounts.add(MountSpec.readOnly(bind.getKey(), bind.getValue()));
    }
    mounts.addAll(extraMounts);
    String name = Ids.vmName();
    var spec =
        new SandboxSpec(
            name,
            root.directory(),
            true,
            mounts,
            key.tier().limits(runtime.capabilities()),
            network(key),
            root.env(),
            root.workingDirectory());
    try {
      budget.acquire();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ApiException(500, "provisioning interrupted", e);
    }
    try {
      offCarrier(() -> runtime.create(spec));
      return name;
    } catch (KoraException e) {
      int status =
          switch (e.kind()) {
            case INVALID_ARGUMENT -> 400;
            // The node's runtime cannot do what the claim asks (a mount it cannot bind).
            case UNSUPPORTED -> 409;
            default -> 500;
          };
      throw new ApiException(status, "provisioning failed: " + e.getMessage(), e);
    } finally {
      budget.release();
    }
  }

  /**
   * Returns the network mode to ask the runtime for. A runtime without isolation (such as {@code
   * process}) cannot make {@code none}; it is chosen only explicitly, for development, so its
   * sandboxes get the host's network instead, as they get the host's everything else.
   */
  private dev.runkora.spi.runtime.NetworkMode network(PoolKey key) {
    var caps = runtime.capabilities();
    if (key.network() == dev.runkora.spi.runtime.NetworkMode.NONE
        && !caps.contains(RuntimeCapability.NETWORK_NONE)
        && caps.contains(RuntimeCapability.NETWORK_EGRESS)) {
      return dev.runkora.spi.runtime.NetworkMode.EGRESS;
    }
    return key.network();
  }

  /** Returns what the runtime does not enforce of the API's promises, for the start-up log. */
  public java.util.List<String> unenforced() {
    var caps = runtime.capabilities();
    var missing = new java.util.ArrayList<String>();
    for (var cap :
        java.util.List.of(
            RuntimeCapability.CPU_LIMIT,
            RuntimeCapability.MEMORY_LIMIT,
            RuntimeCapability.PIDS_LIMIT,
            RuntimeCapability.NETWORK_NONE,
            RuntimeCapability.FILESYSTEM_ISOLATION,
            RuntimeCapability.PROCESS_ISOLATION)) {
      if (!caps.contains(cap)) {
        missing.add(cap.name());
      }
    }
    return missing;
  }

  /**
   * Binds a host path into a running sandbox (a mount at claim time on a warm sandbox).
   *
   * @throws dev.runkora.spi.core.KoraException as the runtime's {@code mount} does
   */
  public void mount(String name, MountSpec mount) {
    offCarrier(() -> runtime.mount(name, mount));
  }

  /** Destroys a sandbox; failures are logged, never thrown (the reaper or a restart retries). */
  public void destroy(String name) {
    logs.drop(name);
    try {
      offCarrier(() -> runtime.delete(name));
    } catch (RuntimeException e) {
      LOG.log(System.Logger.Level.WARNING, "could not delete sandbox " + name, e);
    }
  }
}
