package dev.runkora.plugin.runtime.bwrap;

import dev.runkora.spi.core.KoraException;
import dev.runkora.spi.core.PluginConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The settings of the {@code bwrap} runtime, read from its {@link PluginConfig}.
 *
 * @param bwrap the bubblewrap binary
 * @param nsenter util-linux {@code nsenter}, used to enter a running sandbox
 * @param mount util-linux {@code mount}, used for the overlay and the live-mount area
 * @param umount util-linux {@code umount}
 * @param setsid util-linux {@code setsid}, which puts a sandbox in a session of its own
 * @param busybox a statically linked busybox: it keeps a sandbox alive and performs live mounts
 *     inside it, whatever the root filesystem holds (a root need not have a libc or a shell)
 * @param cgroupRoot where the cgroup v1 controllers are mounted
 * @param cgroupParent the cgroup under each controller that holds this runtime's sandboxes
 * @param userNamespace whether sandboxes get their own user namespace (root inside maps to root
 *     outside, but its capabilities hold only inside the sandbox's namespaces)
 */
record BwrapSettings(
    Path bwrap,
    Path nsenter,
    Path mount,
    Path umount,
    Path setsid,
    Path busybox,
    Path cgroupRoot,
    String cgroupParent,
    boolean userNamespace) {

  static final String NAME = "bwrap";

  private static final Pattern CGROUP_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,63}");
  private static final Set<String> KEYS =
      Set.of(
          "bwrap",
          "nsenter",
          "mount",
          "umount",
          "setsid",
          "busybox",
          "cgroup-root",
          "cgroup-parent",
          "user-namespace");

  /** Reads the settings; fails with INVALID_ARGUMENT on an unknown key or a bad value. */
  static BwrapSettings from(PluginConfig config) {
    config.requireKnownKeys(NAME, KEYS);
    var parent = config.string("cgroup-parent", "kora");
    if (!CGROUP_NAME.matcher(parent).matches()) {
      throw KoraException.invalidArgument(
          "setting 'cgroup-parent' must be one cgroup name matching %s, not '%s'",
          CGROUP_NAME, parent);
    }
    return new BwrapSettings(
        config.path("bwrap", Path.of("/usr/bin/bwrap")),
        config.path("nsenter", Path.of("/usr/bin/nsenter")),
        config.path("mount", Path.of("/usr/bin/mount")),
        config.path("umount", Path.of("/usr/bin/umount")),
        config.path("setsid", Path.of("/usr/bin/setsid")),
        config.path("busybox", Path.of("/bin/busybox")),
        config.path("cgroup-root", Path.of("/sys/fs/cgroup")),
        parent,
        config.booleanValue("user-namespace", true));
  }

  /** Fails with UNAVAILABLE when a binary this runtime runs is missing or not executable. */
  void checkBinaries() {
    for (var binary : new Path[] {bwrap, nsenter, mount, umount, setsid, busybox}) {
      if (!Files.isRegularFile(binary) || !Files.isExecutable(binary)) {
        throw KoraException.unavailable(
            "runtime 'bwrap' needs %s, which is missing or not executable (Debian packages:"
                + " bubblewrap, util-linux, mount, busybox-static)",
            binary);
      }
    }
  }
}
