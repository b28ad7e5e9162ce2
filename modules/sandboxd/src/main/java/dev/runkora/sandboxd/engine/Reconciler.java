package dev.runkora.sandboxd.engine;

import dev.runkora.spi.runtime.SandboxInfo;
import dev.runkora.spi.runtime.SandboxRuntime;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.Executors;

/**
 * Start-up reconcile (reference §7.2): claims whose sandbox still runs are adopted; every other
 * sandbox with the daemon's prefix is destroyed; the file is rewritten to what was adopted.
 */
public final class Reconciler {

  private static final System.Logger LOG = System.getLogger(Reconciler.class.getName());

  private Reconciler() {}

  /**
   * Reconciles the store with what the runtime has.
   *
   * @return what happened, for the log
   * @throws dev.runkora.spi.core.KoraException when the runtime cannot list its sandboxes (a node
   *     that cannot reconcile does not start)
   * @throws UncheckedIOException when the reconciled file cannot be written
   */
  public static String reconcile(ClaimStore store, SandboxRuntime runtime, Admission admission) {
    List<SandboxInfo> existing = runtime.list();
    var running = new HashSet<String>();
    for (SandboxInfo info : existing) {
      if (info.running()) {
        running.add(info.name());
      }
    }
    var adopted = new HashSet<String>();
    int dropped = 0;
    for (Claim claim : store.all()) {
      if (running.contains(claim.vmName()) && adopted.add(claim.vmName())) {
        admission.adopt(claim.tenant());
      } else {
        store.remove(claim);
        dropped++;
      }
    }
    var doomed = new ArrayList<String>();
    for (SandboxInfo info : existing) {
      if (info.name().startsWith(Ids.VM_PREFIX) && !adopted.contains(info.name())) {
        doomed.add(info.name());
      }
    }
    try (var workers = Executors.newVirtualThreadPerTaskExecutor()) {
      for (String name : doomed) {
        workers.execute(
            () -> {
              try {
                runtime.delete(name);
              } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "could not delete stray sandbox " + name, e);
              }
            });
      }
    }
    try {
      store.commit(store.version());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + store.file(), e);
    }
    return "adopted %d claim(s), dropped %d, destroyed %d stray sandbox(es)"
        .formatted(adopted.size(), dropped, doomed.size());
  }
}
