package dev.runkora.plugin.storage.local;

import dev.runkora.spi.core.KoraException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** The host tools the loop mode runs, and the mount table it reads. */
final class Commands {

  private static final long TIMEOUT_SECONDS = 120;

  private Commands() {}

  /** Runs a command and returns its output; fails with INTERNAL naming the command and output. */
  static String run(String... command) {
    return run(java.util.Set.of(0), command);
  }

  /** Runs a command that may exit with any of {@code success}; otherwise fails like run. */
  static String run(java.util.Set<Integer> success, String... command) {
    var builder = new ProcessBuilder(command).redirectErrorStream(true);
    builder.environment().put("LC_ALL", "C");
    try {
      var process = builder.start();
      process.getOutputStream().close();
      var output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw KoraException.internal(
            null, "'%s' did not finish in %d s", String.join(" ", command), TIMEOUT_SECONDS);
      }
      if (!success.contains(process.exitValue())) {
        throw KoraException.internal(
            null,
            "'%s' failed (exit %d): %s",
            String.join(" ", command),
            process.exitValue(),
            output.strip());
      }
      return output;
    } catch (IOException e) {
      throw KoraException.internal(
          e, "cannot run '%s': %s", String.join(" ", command), e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw KoraException.internal(e, "interrupted while running '%s'", String.join(" ", command));
    }
  }

  /** Returns the executables of {@code names} that are not on the PATH. */
  static List<String> missingExecutables(String... names) {
    var path = System.getenv().getOrDefault("PATH", "/usr/sbin:/usr/bin:/sbin:/bin");
    var dirs = new ArrayList<String>(List.of(path.split(java.io.File.pathSeparator)));
    dirs.addAll(List.of("/usr/sbin", "/sbin"));
    var missing = new ArrayList<String>();
    for (var name : names) {
      if (dirs.stream().noneMatch(d -> Files.isExecutable(Path.of(d, name)))) {
        missing.add(name);
      }
    }
    return missing;
  }

  /** Returns the mount points of this process's mount namespace. */
  static List<Path> mountPoints() {
    try {
      var points = new ArrayList<Path>();
      for (var line : Files.readAllLines(Path.of("/proc/self/mountinfo"))) {
        var fields = line.split(" ");
        if (fields.length > 4) {
          points.add(Path.of(unescape(fields[4])));
        }
      }
      return points;
    } catch (IOException e) {
      throw KoraException.unavailable("cannot read /proc/self/mountinfo: %s", e.getMessage());
    }
  }

  /** Undoes the octal escapes (such as {@code \040} for a space) of the mount table. */
  private static String unescape(String field) {
    var out = new StringBuilder(field.length());
    for (int i = 0; i < field.length(); i++) {
      char c = field.charAt(i);
      if (c == '\\' && i + 4 <= field.length()) {
        try {
          out.append((char) Integer.parseInt(field.substring(i + 1, i + 4), 8));
          i += 3;
          continue;
        } catch (NumberFormatException e) {
          // Not an escape: keep the backslash.
        }
      }
      out.append(c);
    }
    return out.toString();
  }
}
