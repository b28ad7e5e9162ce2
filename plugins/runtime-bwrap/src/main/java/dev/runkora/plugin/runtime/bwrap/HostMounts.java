package dev.runkora.plugin.runtime.bwrap;

import dev.runkora.spi.core.KoraException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The mounts this runtime makes in the host's mount namespace, all of them below a sandbox's own
 * state directory, so that "everything mounted below that directory" is exactly what {@link
 * #unmountAllBelow} has to take away.
 */
final class HostMounts {

  private final BwrapSettings settings;

  HostMounts(BwrapSettings settings) {
    this.settings = settings;
  }

  /**
   * Mounts an overlay of the shared, never-written root filesystem with a private writable layer.
   * The sandbox always gets one, even with a read-only root, because bubblewrap has to create the
   * mount points of the sandbox's binds somewhere; a read-only root is remounted read-only inside.
   *
   * <p>The layer lives on the disk of the state directory. Where overlayfs refuses that filesystem
   * as an upper layer (an overlay or a network filesystem), the layer goes to a tmpfs instead.
   */
  void mountRoot(Path lower, SandboxLayout layout) throws IOException {
    Files.createDirectories(layout.upper());
    Files.createDirectories(layout.work());
    Files.createDirectories(layout.root());
    if (overlay(lower, layout).succeeded()) {
      return;
    }
    Files.createDirectories(layout.layer());
    var tmpfs =
        HostCommand.run(
            List.of(
                settings.mount().toString(),
                "-t",
                "tmpfs",
                "-o",
                "mode=0755",
                "kora-layer",
                layout.layer().toString()));
    if (!tmpfs.succeeded()) {
      throw new IOException("cannot mount a tmpfs for the writable layer: " + tmpfs.output());
    }
    Files.createDirectories(layout.layer().resolve("upper"));
    Files.createDirectories(layout.layer().resolve("work"));
    var retry = overlay(lower, layout.onTmpfs());
    if (!retry.succeeded()) {
      throw new IOException("cannot mount the sandbox's overlay root: " + retry.output());
    }
  }

  private HostCommand.Result overlay(Path lower, SandboxLayout layout) {
    var options =
        "lowerdir=%s,upperdir=%s,workdir=%s".formatted(lower, layout.upper(), layout.work());
    return mount(settings, "overlay", options, "kora-root", layout.root());
  }

  /**
   * Mounts a filesystem of a type: through {@code mount(2)} where native calls are on and allowed,
   * else with the {@code mount} program.
   */
  static HostCommand.Result mount(
      BwrapSettings settings, String type, String options, String source, Path target) {
    if (settings.nativeCalls() && NativeMounts.mount(source, target, type, 0, options)) {
      return new HostCommand.Result(0, "");
    }
    return HostCommand.run(
        List.of(settings.mount().toString(), "-t", type, "-o", options, source, target.toString()));
  }

  /**
   * Makes the sandbox's live-mount directory a shared mount point. The sandbox binds it; its mount
   * namespace then holds a slave copy, so a mount made below it on the host later propagates into
   * the running sandbox. That is how {@code mount()} reaches a sandbox without restarting it.
   */
  void mountLiveArea(Path live) throws IOException {
    Files.createDirectories(live);
    if (settings.nativeCalls()
        && NativeMounts.mount(live.toString(), live, null, NativeMounts.MS_BIND, null)) {
      if (NativeMounts.mount(null, live, null, NativeMounts.MS_SHARED, null)) {
        return;
      }
      NativeMounts.unmount(live.toString(), 0);
    }
    run("--bind", "--make-shared", live.toString(), live.toString());
  }

  /** Binds a host path below the live area, where it propagates into the sandbox. */
  void bind(Path source, Path target) throws IOException {
    run("--bind", source.toString(), target.toString());
  }

  /**
   * Unmounts every mount below (and at) a directory, deepest first, detaching lazily what is busy.
   *
   * @return the mount points still there afterwards
   */
  List<String> unmountAllBelow(Path dir) {
    for (var point : mountPointsBelow(dir)) {
      if (settings.nativeCalls()
          && (NativeMounts.unmount(point, 0)
              || NativeMounts.unmount(point, NativeMounts.MNT_DETACH))) {
        continue;
      }
      var result = HostCommand.run(List.of(settings.umount().toString(), point));
      if (!result.succeeded()) {
        HostCommand.run(List.of(settings.umount().toString(), "-l", point));
      }
    }
    return mountPointsBelow(dir);
  }

  /** Returns the mount points at or below a directory, deepest first, from /proc/self/mountinfo. */
  static List<String> mountPointsBelow(Path dir) {
    var prefix = dir.toAbsolutePath().normalize().toString();
    var result = new ArrayList<String>();
    try {
      for (var line : Files.readAllLines(Path.of("/proc/self/mountinfo"))) {
        var fields = line.split(" ");
        if (fields.length > 4) {
          var point = unescape(fields[4]);
          if (point.equals(prefix) || point.startsWith(prefix + "/")) {
            result.add(point);
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    result.sort(Comparator.comparingInt(String::length).reversed());
    return result;
  }

  /** Decodes the octal escapes mountinfo uses for space, tab, newline and backslash. */
  static String unescape(String field) {
    var out = new StringBuilder(field.length());
    for (int i = 0; i < field.length(); i++) {
      char c = field.charAt(i);
      if (c == '\\' && isOctal(field, i + 1)) {
        out.append((char) Integer.parseInt(field.substring(i + 1, i + 4), 8));
        i += 3;
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }

  private static boolean isOctal(String s, int from) {
    if (from + 3 > s.length()) {
      return false;
    }
    for (int i = from; i < from + 3; i++) {
      if (s.charAt(i) < '0' || s.charAt(i) > '7') {
        return false;
      }
    }
    return true;
  }

  private void run(String... args) throws IOException {
    var argv = new ArrayList<String>();
    argv.add(settings.mount().toString());
    argv.addAll(List.of(args));
    var result = HostCommand.run(argv);
    if (!result.succeeded()) {
      throw new IOException(String.join(" ", argv) + ": " + result.output());
    }
  }

  /** Fails with INVALID_ARGUMENT for a path overlayfs options cannot carry. */
  static void checkOverlayPath(Path path, String what) {
    var text = path.toString();
    if (text.contains(",") || text.contains(":") || text.contains("\\")) {
      throw KoraException.invalidArgument(
          "%s %s contains ',', ':' or '\\', which an overlay mount cannot name", what, path);
    }
  }
}
