package dev.runkora.plugin.runtime.bwrap;

import dev.runkora.spi.core.PluginConfig;
import dev.runkora.spi.runtime.RuntimeCapability;
import dev.runkora.spi.runtime.RuntimeContext;
import dev.runkora.spi.runtime.RuntimeProvider;
import dev.runkora.spi.runtime.SandboxRuntime;
import java.util.EnumSet;
import java.util.Set;

/**
 * The {@code bwrap} runtime provider: Linux namespaces through bubblewrap, cgroup v1 limits.
 *
 * <p>Settings (all optional): {@code bwrap}, {@code nsenter}, {@code mount}, {@code umount}, {@code
 * mkfifo}, {@code setsid}, {@code busybox} (paths of the host binaries it runs), {@code
 * cgroup-root} (default {@code /sys/fs/cgroup}), {@code cgroup-parent} (default {@code kora}),
 * {@code user-namespace} (default {@code true}), {@code cgroup-favordynmods} (default {@code true}:
 * mount a controller-less cgroup hierarchy with {@code favordynmods} once per boot, so that moving
 * a sandbox's agent into its cgroups does not wait for an RCU grace period), {@code native-calls}
 * (default {@code true}: call {@code mkfifo}, {@code mount} and {@code umount2} directly where the
 * JVM allows native access; {@code false} runs the programs of those names instead).
 */
public final class BwrapRuntimeProvider implements RuntimeProvider {

  /** Creates the provider; does no I/O, as {@link java.util.ServiceLoader} requires. */
  public BwrapRuntimeProvider() {}

  @Override
  public String name() {
    return BwrapSettings.NAME;
  }

  /**
   * Returns everything but {@link RuntimeCapability#DISK_LIMIT}. A runtime made on a machine whose
   * cgroup controllers are not writable declares less: see {@link SandboxRuntime#capabilities()}.
   */
  @Override
  public Set<RuntimeCapability> capabilities() {
    var all = EnumSet.allOf(RuntimeCapability.class);
    all.remove(RuntimeCapability.DISK_LIMIT);
    return Set.copyOf(all);
  }

  @Override
  public String description() {
    return "Sandboxes in Linux namespaces made by bubblewrap, limited with cgroups";
  }

  @Override
  public SandboxRuntime create(PluginConfig config, RuntimeContext context) {
    return BwrapRuntime.start(BwrapSettings.from(config), context);
  }
}
