package dev.runkora.plugin.runtime.bwrap;

import dev.runkora.spi.runtime.ResourceLimits;
import dev.runkora.spi.runtime.RuntimeCapability;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;

/**
 * The cgroup v1 controllers this runtime uses, one directory per sandbox under {@code
 * <root>/<controller>/<parent>/<sandbox>}.
 *
 * <p>v1, because that is what the machines we run on have writable (cgroup v2 there carries no
 * memory or cpu controller). A controller whose hierarchy is missing or read-only is simply not
 * used, and the capability it backs is not declared: {@link #capabilities()} is the honest report.
 */
final class CgroupV1 {

  /** The controllers in the order processes join them. */
  static final List<String> CONTROLLERS = List.of("memory", "pids", "cpu", "cpuacct");

  private static final long CFS_PERIOD_MICROS = 100_000;

  private final Map<String, Path> parents;

  private CgroupV1(Map<String, Path> parents) {
    this.parents = parents;
  }

  /**
   * Finds which controllers are mounted and writable, creating the parent cgroup in each. Never
   * fails: a controller that cannot be used is left out.
   */
  static CgroupV1 probe(Path root, String parent) {
    var usable = new LinkedHashMap<String, Path>();
    for (var controller : CONTROLLERS) {
      var hierarchy = root.resolve(controller);
      if (!Files.isRegularFile(hierarchy.resolve("cgroup.procs"))) {
        continue;
      }
      var dir = hierarchy.resolve(parent);
      try {
        Files.createDirectories(dir);
        if (Files.isWritable(dir.resolve("cgroup.procs"))) {
          // Real paths, so co-mounted controllers (cpu,cpuacct) share one directory.
          usable.put(controller, dir.toRealPath());
        }
      } catch (IOException | SecurityException e) {
        // Not writable here: the capability it backs is not declared.
      }
    }
    return new CgroupV1(Map.copyOf(usable));
  }

  /** Where this runtime mounts its named, controller-less hierarchy with {@code favordynmods}. */
  static final Path FAVOR_DYNMODS_MOUNT = Path.of("/run/kora/cgroup-favordynmods");

  /**
   * Makes moving a process into a cgroup cheap. Every such move takes the kernel's global
   * thread-group lock for writing, and the first one after a quiet spell waits a whole RCU grace
   * period for it (7 to 10 ms on our machines, more than the rest of a sandbox's start). The {@code
   * favordynmods} option keeps that lock ready for writers, at the cost of a little more work in
   * every fork and exit. It is a per-hierarchy mount option with a machine-wide effect; the
   * hierarchies already mounted cannot be remounted with it, so this mounts a named hierarchy
   * without controllers that carries it, once per boot (an existing one is reused).
   *
   * @return a description of the outcome, for the log
   */
  static String favorDynamicModifications(BwrapSettings settings) {
    try {
      for (var line : Files.readAllLines(Path.of("/proc/self/mountinfo"))) {
        int dash = line.indexOf(" - cgroup ");
        if (dash >= 0 && line.substring(dash).contains("favordynmods")) {
          return "cgroup favordynmods on";
        }
      }
      Files.createDirectories(FAVOR_DYNMODS_MOUNT);
    } catch (IOException e) {
      return "cgroup favordynmods off: " + e.getMessage();
    }
    var result =
        HostMounts.mount(
            settings,
            "cgroup",
            "none,name=kora-favordynmods,favordynmods",
            "cgroup",
            FAVOR_DYNMODS_MOUNT);
    return result.succeeded()
        ? "cgroup favordynmods on (mounted " + FAVOR_DYNMODS_MOUNT + ")"
        : "cgroup favordynmods off (the kernel refused it, so each sandbox start may wait an RCU"
            + " grace period): "
            + result.output().strip();
  }

  /** Returns what the usable controllers let this runtime enforce and measure. */
  Set<RuntimeCapability> capabilities() {
    var result = EnumSet.noneOf(RuntimeCapability.class);
    if (parents.containsKey("memory")) {
      result.add(RuntimeCapability.MEMORY_LIMIT);
    }
    if (parents.containsKey("pids")) {
      result.add(RuntimeCapability.PIDS_LIMIT);
    }
    if (parents.containsKey("cpu")) {
      result.add(RuntimeCapability.CPU_LIMIT);
    }
    if (parents.keySet().containsAll(List.of("memory", "cpuacct", "pids"))) {
      result.add(RuntimeCapability.STATS);
    }
    return result;
  }

  /** Returns the directories of one sandbox, one per usable controller. */
  List<Path> directories(String sandbox) {
    return CONTROLLERS.stream()
        .filter(parents::containsKey)
        .map(controller -> parents.get(controller).resolve(sandbox))
        .distinct()
        .toList();
  }

  /** Returns the {@code cgroup.procs} files a process writes its pid into to join a sandbox. */
  List<Path> procsFiles(String sandbox) {
    return directories(sandbox).stream().map(dir -> dir.resolve("cgroup.procs")).toList();
  }

  /** Creates the sandbox's cgroups and writes its limits (zero limits are left unlimited). */
  void create(String sandbox, ResourceLimits limits) throws IOException {
    for (var dir : directories(sandbox)) {
      Files.createDirectory(dir);
    }
    if (limits.memoryBytes() > 0) {
      var memory = parents.get("memory").resolve(sandbox);
      write(memory.resolve("memory.limit_in_bytes"), limits.memoryBytes());
      // Without this the kernel would swap the sandbox out instead of killing it.
      var memsw = memory.resolve("memory.memsw.limit_in_bytes");
      if (Files.exists(memsw)) {
        write(memsw, limits.memoryBytes());
      }
    }
    if (limits.pids() > 0) {
      write(parents.get("pids").resolve(sandbox).resolve("pids.max"), limits.pids());
    }
    if (limits.cpus() > 0) {
      var cpu = parents.get("cpu").resolve(sandbox);
      write(cpu.resolve("cpu.cfs_period_us"), CFS_PERIOD_MICROS);
      write(cpu.resolve("cpu.cfs_quota_us"), Math.max(1000, Math.round(limits.cpus() * 100_000)));
    }
  }

  /**
   * Moves processes into the sandbox's cgroups, one controller after the other. Their children
   * forked afterwards are born there.
   */
  void join(String sandbox, List<Long> pids) throws IOException {
    for (var procs : procsFiles(sandbox)) {
      for (long pid : pids) {
        write(procs, pid);
      }
    }
  }

  /** Returns the pids of every process in the sandbox's cgroups (a set; empty when none). */
  Set<Long> processes(String sandbox) {
    var result = new java.util.TreeSet<Long>();
    for (var dir : directories(sandbox)) {
      try {
        for (var line : Files.readAllLines(dir.resolve("cgroup.procs"))) {
          if (!line.isBlank()) {
            result.add(Long.parseLong(line.trim()));
          }
        }
      } catch (NoSuchFileException e) {
        // Already removed.
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return result;
  }

  /**
   * Removes the sandbox's cgroups. The kernel refuses while a process is still in one, so this is
   * called after every process is gone.
   *
   * @return the directories that could not be removed
   */
  List<Path> remove(String sandbox) {
    var left = new ArrayList<Path>();
    for (var dir : directories(sandbox)) {
      try {
        Files.deleteIfExists(dir);
      } catch (IOException e) {
        left.add(dir);
      }
    }
    return left;
  }

  /** Reads one number a controller exposes, if the controller is used and the file exists. */
  OptionalLong read(String controller, String sandbox, String file) {
    var parent = parents.get(controller);
    if (parent == null) {
      return OptionalLong.empty();
    }
    try {
      var text = Files.readString(parent.resolve(sandbox).resolve(file), StandardCharsets.US_ASCII);
      return OptionalLong.of(Long.parseLong(text.trim()));
    } catch (IOException | NumberFormatException e) {
      return OptionalLong.empty();
    }
  }

  private static void write(Path file, long value) throws IOException {
    Files.writeString(file, Long.toString(value), StandardCharsets.US_ASCII);
  }
}
