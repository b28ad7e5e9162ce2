package dev.runkora.plugin.runtime.bwrap;

import static org.assertj.core.api.Assertions.assertThat;

import dev.runkora.conformance.runtime.RuntimeSuite;
import dev.runkora.spi.runtime.RuntimeProvider;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * A sandbox does not depend on the JVM that made it: it runs in a session of its own (no SIGHUP
 * when the JVM's session ends) and holds no pipe to the JVM (no SIGPIPE, no blocked write, once the
 * JVM is gone). Those are the two ways a child dies with its parent.
 */
class BwrapDetachIT extends RuntimeSuite {

  @Override
  protected RuntimeProvider provider() {
    return new BwrapRuntimeProvider();
  }

  @Test
  void sandboxInitHasItsOwnSessionAndNoPipeToTheJvm() throws Exception {
    var name = createDefault();
    var state =
        SandboxState.load(
            stateDirectory.resolve("sandboxes").resolve(name).resolve("state.properties"));
    var init = state.initPid();

    assertThat(sessionOf(init)).isNotEqualTo(sessionOf(ProcessHandle.current().pid()));
    assertThat(pipesOf(init)).doesNotContainAnyElementsOf(pipesOf(ProcessHandle.current().pid()));
    for (var fd : new String[] {"0", "1", "2"}) {
      var target = Files.readSymbolicLink(Path.of("/proc", Long.toString(init), "fd", fd));
      assertThat(target.toString()).doesNotStartWith("pipe:");
    }
  }

  private static String sessionOf(long pid) throws Exception {
    var stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
    // Field 6 (session) is the 4th after the parenthesised command name.
    return stat.substring(stat.lastIndexOf(')') + 2).split(" ")[3];
  }

  private static java.util.Set<String> pipesOf(long pid) throws Exception {
    var result = new java.util.HashSet<String>();
    try (var fds = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
      for (var fd : fds.toList()) {
        try {
          var target = Files.readSymbolicLink(fd).toString();
          if (target.startsWith("pipe:")) {
            result.add(target);
          }
        } catch (java.io.IOException e) {
          // Closed while listing.
        }
      }
    }
    return result;
  }
}
