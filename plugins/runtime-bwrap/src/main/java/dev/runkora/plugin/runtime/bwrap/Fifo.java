package dev.runkora.plugin.runtime.bwrap;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Makes named pipes: with libc's {@code mkfifo} through the foreign function API (the JDK has no
 * call for it, and the program costs a process per pipe), or, where native calls are off or the JVM
 * refuses native access, with coreutils' {@code mkfifo} program. Both make the same pipe.
 */
final class Fifo {

  private static final Optional<MethodHandle> MKFIFO = link();

  private final Path program;
  private final boolean nativeCalls;

  /**
   * @param program the {@code mkfifo} program
   * @param nativeCalls whether to call libc when the JVM allows it
   */
  Fifo(Path program, boolean nativeCalls) {
    this.program = program;
    this.nativeCalls = nativeCalls;
  }

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
      // IllegalCallerException where native access is refused.
      return Optional.empty();
    }
  }

  /** Returns whether this JVM lets libc's {@code mkfifo} be called. */
  static boolean nativeAvailable() {
    return MKFIFO.isPresent();
  }

  /** Makes a named pipe readable and writable by its owner only; fails if the path exists. */
  void make(Path path) throws IOException {
    if (nativeCalls && MKFIFO.isPresent()) {
      int result;
      try (var arena = Arena.ofConfined()) {
        result = (int) MKFIFO.get().invokeExact(arena.allocateFrom(path.toString()), 0600);
      } catch (Throwable e) {
        throw new IOException("mkfifo " + path + ": " + e.getMessage(), e);
      }
      if (result != 0) {
        throw new IOException("mkfifo " + path + " failed");
      }
      return;
    }
    var result = HostCommand.run(List.of(program.toString(), "-m", "0600", "--", path.toString()));
    if (!result.succeeded()) {
      throw new IOException("mkfifo " + path + ": " + result.output());
    }
  }
}
