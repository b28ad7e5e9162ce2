package dev.runkora.plugin.runtime.bwrap;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;

/**
 * Reads a process's start time from {@code /proc/<pid>/stat}. A pid alone does not name a process
 * for long: once it exits the kernel may hand the number to another. The pair (pid, start time) is
 * unique for the life of the machine, so it is what sandbox state records and checks.
 */
final class ProcStat {

  private ProcStat() {}

  /** Returns the start time of a process in clock ticks since boot, or empty if it is gone. */
  static OptionalLong startTicks(long pid) {
    try {
      var stat =
          Files.readString(Path.of("/proc", Long.toString(pid), "stat"), StandardCharsets.UTF_8);
      // The command name (field 2) is in parentheses and may hold spaces: count from after it.
      var fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      // Field 22 (starttime) is the 20th after the name; field 3 (state) is the first.
      if (fields[0].equals("Z") || fields[0].equals("X")) {
        return OptionalLong.empty();
      }
      return OptionalLong.of(Long.parseLong(fields[19]));
    } catch (IOException | RuntimeException e) {
      return OptionalLong.empty();
    }
  }

  /**
   * Returns the children of a single-threaded process, from {@code /proc/<pid>/task/<pid>/children}
   * (not a scan of every process); empty when it is gone.
   */
  static java.util.List<Long> children(long pid) {
    try {
      var text =
          Files.readString(
              Path.of("/proc", Long.toString(pid), "task", Long.toString(pid), "children"),
              StandardCharsets.US_ASCII);
      var result = new java.util.ArrayList<Long>();
      for (var word : text.trim().split(" ")) {
        if (!word.isEmpty()) {
          result.add(Long.parseLong(word));
        }
      }
      return result;
    } catch (IOException | NumberFormatException e) {
      return java.util.List.of();
    }
  }

  /** Returns whether the process that had this pid and start time still runs. */
  static boolean isAlive(long pid, long startTicks) {
    return pid > 0 && startTicks(pid).equals(OptionalLong.of(startTicks));
  }
}
