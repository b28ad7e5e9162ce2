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
 * @param nsenter util-linux {@code nsenter}, with which the host enters a running sandbox to make a
 *     live mount (commands never run through it: the exec agent forks them)
 * @param mount util-linux {@code mount}, used for the overlay and the live-mount area
 * @param umount util-linux {@code umount}
 * @param mkfifo coreutils {@code mkfifo}, which makes the exec agent's named pipes where native
 *     calls are off or refused
 * @param setsid util-linux {@code setsid}, which puts a sandbox in a session of its own
 * @param busybox a statically linked busybox: it keeps a sandbox alive and performs live mounts
 *     inside it, whatever the root filesystem holds (a root need not have a libc or a shell)
 * @param cgroupRoot where the cgroup v1 controllers are mounted
 * @param cgroupParent the cgroup under each controller that holds this runtime's sandboxes
 * @param userNamespace whether sandboxes get their own user namespace (root inside maps to root
 *     outside, but its capabilities hold only inside the sandbox's namespaces)
 * @param favorDynmods whether to make the kernel favour cgroup migrations over forks (see {@link
 *     CgroupV1#favorDynamicModifications})
 * @param nativeCalls whether {@code mkfifo}, {@code mount} and {@code umount2} are called through
 *     the foreign function API (which needs {@code
 *     --enable-native-access=dev.runkora.plugin.runtime.bwrap}); when false, or when the JVM
 *     refuses native access, the runtime runs the {@code mkfifo}, {@code mount} and {@code umount}
 *     programs instead, with the same outcome
 */
record BwrapSettings(
    Path bwrap,
    Path nsenter,
    Path mount,
    Path umount,
    Path mkfifo,
    Path setsid,
    Path busybox,
    Path cgroupRoot,
    String cgroupParent,
    boolean userNamespace,
    boolean favorDynmods,
    boolean nativeCalls) {

  static final String NAME = "bwrap";

  private static final Pattern CGROUP_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,63}");
  private static final Set<String> KEYS =
      Set.of(
          "bwrap",
          "nsenter",
          "mount",
          "umount",
          "mkfifo",
          "setsid",
          "busybox",
          "cgroup-root",
          "cgroup-parent",
          "user-namespace",
          "cgroup-favordynmods",
          "native-calls");

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
        config.path("mkfifo", Path.of("/usr/bin/mkfifo")),
        config.path("setsid", Path.of("/usr/bin/setsid")),
        config.path("busybox", Path.of("/bin/busybox")),
        config.path("cgroup-root", Path.of("/sys/fs/cgroup")),
        parent,
        config.booleanValue("user-namespace", true),
        config.booleanValue("cgroup-favordynmods", true),
        config.booleanValue("native-calls", true));
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
    if (!nativeCalls || !Fifo.nativeAvailable()) {
      if (!Files.isRegularFile(mkfifo) || !Files.isExecutable(mkfifo)) {
        throw KoraException.unavailable(
            "runtime 'bwrap' needs %s (Debian package coreutils) to make named pipes, or native"
                + " calls: start Java with --enable-native-access=dev.runkora.plugin.runtime.bwrap"
                + " and leave setting 'native-calls' true",
            mkfifo);
      }
    }
  }
}
