package dev.runkora.plugin.runtime.process;

import dev.runkora.spi.core.PluginConfig;
import dev.runkora.spi.runtime.RuntimeCapability;
import dev.runkora.spi.runtime.RuntimeContext;
import dev.runkora.spi.runtime.RuntimeProvider;
import dev.runkora.spi.runtime.SandboxRuntime;
import java.util.Set;

/**
 * The {@code process} runtime provider: no isolation, for development and as a benchmark baseline.
 * It takes no settings.
 */
public final class ProcessRuntimeProvider implements RuntimeProvider {

  /** Creates the provider; does no I/O, as {@link java.util.ServiceLoader} requires. */
  public ProcessRuntimeProvider() {}

  @Override
  public String name() {
    return ProcessRuntime.NAME;
  }

  @Override
  public Set<RuntimeCapability> capabilities() {
    return ProcessRuntime.CAPABILITIES;
  }

  @Override
  public String description() {
    return "Commands as plain host processes in a working directory: no isolation, no limits";
  }

  @Override
  public SandboxRuntime create(PluginConfig config, RuntimeContext context) {
    config.requireKnownKeys(ProcessRuntime.NAME, Set.of());
    return new ProcessRuntime(context);
  }
}
