package dev.runkora.sandboxd;

import dev.runkora.sandboxd.engine.Ids;
import dev.runkora.spi.core.PluginConfig;
import dev.runkora.spi.runtime.RuntimeContext;
import dev.runkora.spi.runtime.RuntimeProvider;
import dev.runkora.spi.runtime.SandboxInfo;
import dev.runkora.spi.runtime.SandboxRuntime;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;

/**
 * What a daemon left in a runtime's state directory, seen through the runtime plugin itself: tests
 * list it to check a shutdown, and delete it afterwards so that no test leaves sandboxes, mounts or
 * cgroups on the host (a daemon that stops or is killed leaves claimed sandboxes running by
 * design).
 */
final class Leftovers {

  private Leftovers() {}

  /** Returns the runtime's state directory under a daemon's data directory. */
  static Path stateDir(Path dataDir, String runtime) {
    return dataDir.resolve("runtime").resolve(runtime);
  }

  /** Returns the names of the daemon's sandboxes the runtime lists there (none when absent). */
  static List<String> list(String runtime, Path stateDir) {
    if (!Files.isDirectory(stateDir)) {
      return List.of();
    }
    try (var plugin = open(runtime, stateDir)) {
      return ours(plugin);
    }
  }

  /** Deletes every sandbox of the daemon's the runtime lists there; returns their names. */
  static List<String> destroy(String runtime, Path stateDir) {
    if (!Files.isDirectory(stateDir)) {
      return List.of();
    }
    try (var plugin = open(runtime, stateDir)) {
      var names = ours(plugin);
      for (String name : names) {
        plugin.delete(name);
      }
      return names;
    }
  }

  private static List<String> ours(SandboxRuntime plugin) {
    var names = new ArrayList<String>();
    for (SandboxInfo info : plugin.list()) {
      if (info.name().startsWith(Ids.VM_PREFIX)) {
        names.add(info.name());
      }
    }
    return names;
  }

  private static SandboxRuntime open(String runtime, Path stateDir) {
    for (RuntimeProvider provider : ServiceLoader.load(RuntimeProvider.class)) {
      if (provider.name().equals(runtime)) {
        return provider.create(
            PluginConfig.empty(), new RuntimeContext(stateDir, System.getLogger("leftovers")));
      }
    }
    throw new AssertionError("the " + runtime + " runtime plugin is not on the test path");
  }
}
