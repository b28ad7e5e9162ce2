package dev.runkora.plugin.runtime.bwrap;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Named pipes, made with libc's {@code mkfifo} through the foreign function API: the JDK has no
 * call for it, and running the {@code mkfifo} program would cost a process per pipe. Where native
 * access is refused, {@link #available()} is false and the runtime enters sandboxes the slower way.
 */
final class Fifo {

  private static final Optional<MethodHandle> MKFIFO = link();

  private Fifo() {}

  @SuppressWarnings("restricted")
  private static Optional<MethodHandle> link() {
    try {
      var linker = Linker.nativeLinker();
      return linker
          .defaultLookup()
          .find("mkfifo")
          .map(
              symbol ->
                  linker.downcallHandle(
                      symbol,
                      FunctionDescriptor.of(
                          ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT)));
    } catch (RuntimeException | LinkageError e) {
      return Optional.empty();
    }
  }

  /** Returns whether pipes can be made here. */
  static boolean available() {
    return MKFIFO.isPresent();
  }

  /** Makes a named pipe readable and writable by its owner only; fails if the path exists. */
  static void make(Path path) throws IOException {
    var mkfifo = MKFIFO.orElseThrow(() -> new IOException("mkfifo is not available"));
    int result;
    try (var arena = Arena.ofConfined()) {
      result = (int) mkfifo.invokeExact(arena.allocateFrom(path.toString()), 0600);
    } catch (Throwable e) {
      throw new IOException("mkfifo " + path + ": " + e.getMessage(), e);
    }
    if (result != 0) {
      throw new IOException("mkfifo " + path + " failed");
    }
  }
}
