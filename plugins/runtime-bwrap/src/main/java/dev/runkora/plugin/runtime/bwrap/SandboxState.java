package dev.runkora.plugin.runtime.bwrap;

import java.io.IOException;
import java.io.Reader;
import java.io.StringWriter;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/**
 * What a runtime must know of a sandbox to use it again after the node daemon restarts: which
 * process is its init (pid and start time, so a recycled pid is never taken for it), how it was
 * made, and the base environment of its commands.
 *
 * @param name the sandbox's name
 * @param createdAt when it was created
 * @param initPid the host pid of the sandbox's pid 1 (bubblewrap's reaper), 0 before it started
 * @param initStartTicks that process's start time in clock ticks since boot, from /proc
 * @param userNamespace whether the sandbox has its own user namespace (then exec enters it too)
 * @param env the base environment of commands
 * @param workingDirectory the default working directory of commands
 */
record SandboxState(
    String name,
    Instant createdAt,
    long initPid,
    long initStartTicks,
    boolean userNamespace,
    Map<String, String> env,
    String workingDirectory) {

  SandboxState {
    env = Map.copyOf(env);
  }

  /** Returns the state once the init process is known. */
  SandboxState withInit(long pid, long startTicks) {
    return new SandboxState(name, createdAt, pid, startTicks, userNamespace, env, workingDirectory);
  }

  /**
   * Writes the state atomically: a temporary file renamed over the old one, so a reader sees the
   * old state or the new one, never half of one. Not flushed to disk: the state describes running
   * processes, which a power loss ends anyway; after one, a lost or empty state file leaves a
   * directory that {@code list()} reports as not running and {@code delete()} removes. (A flush
   * cost about 7 ms per write here, a quarter of a create.)
   */
  void store(Path file) throws IOException {
    var properties = new Properties();
    properties.setProperty("name", name);
    properties.setProperty("createdAt", createdAt.toString());
    properties.setProperty("initPid", Long.toString(initPid));
    properties.setProperty("initStartTicks", Long.toString(initStartTicks));
    properties.setProperty("userNamespace", Boolean.toString(userNamespace));
    properties.setProperty("workingDirectory", workingDirectory);
    env.forEach((key, value) -> properties.setProperty("env." + key, value));
    var text = new StringWriter();
    properties.store(text, "kora bwrap sandbox");
    var temporary = file.resolveSibling(file.getFileName() + ".tmp");
    try (var channel =
        FileChannel.open(
            temporary,
            StandardOpenOption.CREATE,
            StandardOpenOption.TRUNCATE_EXISTING,
            StandardOpenOption.WRITE)) {
      channel.write(ByteBuffer.wrap(text.toString().getBytes(StandardCharsets.UTF_8)));
    }
    Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE);
  }

  /** Reads a state written by {@link #store}. */
  static SandboxState load(Path file) throws IOException {
    var properties = new Properties();
    try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      properties.load(reader);
    }
    var env = new TreeMap<String, String>();
    for (var key : properties.stringPropertyNames()) {
      if (key.startsWith("env.")) {
        env.put(key.substring(4), properties.getProperty(key));
      }
    }
    try {
      return new SandboxState(
          required(properties, "name"),
          Instant.parse(required(properties, "createdAt")),
          Long.parseLong(required(properties, "initPid")),
          Long.parseLong(required(properties, "initStartTicks")),
          Boolean.parseBoolean(required(properties, "userNamespace")),
          env,
          required(properties, "workingDirectory"));
    } catch (RuntimeException e) {
      throw new IOException("unreadable sandbox state " + file + ": " + e.getMessage(), e);
    }
  }

  private static String required(Properties properties, String key) throws IOException {
    var value = properties.getProperty(key);
    if (value == null) {
      throw new IOException("sandbox state lacks '" + key + "'");
    }
    return value;
  }
}
