package dev.runkora.vk;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;

/**
 * Temporary directories of the end-to-end tests, removed when the test JVM exits. A tree that still
 * has a mount point at or below it (a bwrap sandbox someone failed to destroy) is left alone and
 * reported: deleting through a bind mount would delete the host's files.
 */
final class TempTrees {

  private static final List<Path> TREES = new CopyOnWriteArrayList<>();

  static {
    Runtime.getRuntime()
        .addShutdownHook(Thread.ofPlatform().unstarted(() -> TREES.forEach(TempTrees::delete)));
  }

  private TempTrees() {}

  /** Creates a temporary directory that is removed when the JVM exits. */
  static Path create(String prefix) throws IOException {
    Path dir = Files.createTempDirectory(prefix).toRealPath();
    TREES.add(dir);
    return dir;
  }

  private static void delete(Path root) {
    try {
      String prefix = root.toString();
      boolean mounted =
          Files.readAllLines(Path.of("/proc/self/mountinfo")).stream()
              .map(line -> line.split(" "))
              .filter(fields -> fields.length > 4)
              .map(fields -> fields[4])
              .anyMatch(point -> point.equals(prefix) || point.startsWith(prefix + "/"));
      if (mounted) {
        System.err.println("kept " + root + ": something is still mounted below it");
        return;
      }
      try (Stream<Path> walk = Files.walk(root)) {
        for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    } catch (IOException | RuntimeException e) {
      System.err.println("could not remove " + root + ": " + e.getMessage());
    }
  }
}
