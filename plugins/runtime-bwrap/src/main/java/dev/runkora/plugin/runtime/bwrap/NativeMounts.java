package dev.runkora.plugin.runtime.bwrap;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The {@code mount(2)} and {@code umount2(2)} system calls through the foreign function API, for
 * the mounts every create and delete makes: calling them directly saves starting util-linux's
 * {@code mount} (a process, and a parse of the host's whole mount table) for each. Every call
 * returns whether it worked, and is false where the JVM refuses native access; the callers then
 * fall back to the {@code mount} and {@code umount} programs, whose error messages they report.
 * With setting {@code native-calls} false the callers skip these calls altogether.
 */
final class NativeMounts {

  static final long MS_BIND = 4096;
  static final long MS_SHARED = 1L << 20;
  static final int MNT_DETACH = 2;

  private static final Optional<MethodHandle> MOUNT =
      link(
          "mount",
          FunctionDescriptor.of(
              ValueLayout.JAVA_INT,
              ValueLayout.ADDRESS,
              ValueLayout.ADDRESS,
              ValueLayout.ADDRESS,
              ValueLayout.JAVA_LONG,
              ValueLayout.ADDRESS));
  private static final Optional<MethodHandle> UMOUNT2 =
      link(
          "umount2",
          FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT));

  private NativeMounts() {}

  @SuppressWarnings("restricted")
  private static Optional<MethodHandle> link(String name, FunctionDescriptor descriptor) {
    try {
      var linker = Linker.nativeLinker();
      return linker
          .defaultLookup()
          .find(name)
          .map(symbol -> linker.downcallHandle(symbol, descriptor));
    } catch (RuntimeException | LinkageError e) {
      return Optional.empty();
    }
  }

  /** Mounts a filesystem; {@code source}, {@code type} and {@code data} may be null. */
  static boolean mount(String source, Path target, String type, long flags, String data) {
    if (MOUNT.isEmpty()) {
      return false;
    }
    try (var arena = Arena.ofConfined()) {
      int result =
          (int)
              MOUNT
                  .get()
                  .invokeExact(
                      string(arena, source),
                      arena.allocateFrom(target.toString()),
                      string(arena, type),
                      flags,
                      string(arena, data));
      return result == 0;
    } catch (Throwable e) {
      return false;
    }
  }

  /** Unmounts a mount point ({@link #MNT_DETACH} detaches a busy one lazily). */
  static boolean unmount(String target, int flags) {
    if (UMOUNT2.isEmpty()) {
      return false;
    }
    try (var arena = Arena.ofConfined()) {
      return (int) UMOUNT2.get().invokeExact(arena.allocateFrom(target), flags) == 0;
    } catch (Throwable e) {
      return false;
    }
  }

  private static MemorySegment string(Arena arena, String value) {
    return value == null ? MemorySegment.NULL : arena.allocateFrom(value);
  }
}
