package dev.runkora.cli.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/** Memory figures from {@code /proc}. */
final class Memory {
  private Memory() {}

  /** The processes below this one and their summed proportional set size. */
  record Tree(int processes, long pss) {}

  /** {@code MemAvailable} of the host, in bytes. */
  static long available() throws IOException {
    return field(Path.of("/proc/meminfo"), "MemAvailable:");
  }

  /** The resident set of this process (the daemon and the bench), in bytes. */
  static long selfRss() throws IOException {
    return field(Path.of("/proc/self/status"), "VmRSS:");
  }

  /** Every descendant of this process with its PSS (shared pages counted once overall). */
  static Tree descendants() {
    List<ProcessHandle> all = ProcessHandle.current().descendants().toList();
    long pss = 0;
    int count = 0;
    for (ProcessHandle p : all) {
      try {
        pss += field(Path.of("/proc", Long.toString(p.pid()), "smaps_rollup"), "Pss:");
        count++;
      } catch (IOException | RuntimeException e) {
        // Gone in the meantime.
      }
    }
    return new Tree(count, pss);
  }

  private static long field(Path file, String name) throws IOException {
    for (String line : Files.readAllLines(file)) {
      if (line.startsWith(name)) {
        String[] parts = line.substring(name.length()).trim().split("\\s+");
        return Long.parseLong(parts[0]) * 1024;
      }
    }
    throw new IOException(name + " not found in " + file);
  }

  static String mib(long bytes) {
    return String.format(Locale.ROOT, "%.2f MiB", bytes / (1024.0 * 1024.0));
  }
}
