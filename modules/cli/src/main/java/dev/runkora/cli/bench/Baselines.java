package dev.runkora.cli.bench;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonWriter;
import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/** The things kora is measured against: bare processes, bare bubblewrap, {@code runc run}. */
final class Baselines {
  private Baselines() {}

  /** Runs a command to completion with its output discarded; fails on a non-zero exit. */
  static void runQuietly(List<String> command) throws IOException, InterruptedException {
    Process p =
        new ProcessBuilder(command)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
            .start();
    byte[] err = p.getErrorStream().readAllBytes();
    int exit = p.waitFor();
    if (exit != 0) {
      throw new IOException(
          command.getFirst()
              + " exited "
              + exit
              + ": "
              + new String(err, java.nio.charset.StandardCharsets.UTF_8).strip());
    }
  }

  /** Times {@code iterations} runs of {@code command}. */
  static Samples time(List<String> command, int iterations)
      throws IOException, InterruptedException {
    Samples s = new Samples();
    for (int i = 0; i < iterations; i++) {
      long t0 = System.nanoTime();
      runQuietly(command);
      s.add(System.nanoTime() - t0);
    }
    return s;
  }

  /** Where an executable is on the PATH. */
  static Optional<Path> which(String name) {
    String path = System.getenv().getOrDefault("PATH", "/usr/sbin:/usr/bin:/sbin:/bin");
    for (String dir : (path + ":/usr/sbin:/sbin").split(":")) {
      Path p = Path.of(dir, name);
      if (Files.isExecutable(p)) {
        return Optional.of(p);
      }
    }
    return Optional.empty();
  }

  /**
   * Bare bubblewrap running {@code true} in the {@code host} template's root (the host's {@code
   * /usr} and {@code /etc} read-only, its top-level links reproduced) with every namespace. Not
   * {@code --ro-bind / /}: that recursive bind races with the daemon's sandboxes mounting and
   * unmounting beside it.
   */
  static List<String> bwrapTrue(Path bwrap) throws IOException {
    List<String> argv = new java.util.ArrayList<>(List.of(bwrap.toString()));
    for (String top : List.of("usr", "etc", "bin", "sbin", "lib", "lib64")) {
      Path host = Path.of("/", top);
      if (Files.isSymbolicLink(host)) {
        argv.addAll(List.of("--symlink", Files.readSymbolicLink(host).toString(), "/" + top));
      } else if (Files.isDirectory(host)) {
        argv.addAll(List.of("--ro-bind", host.toString(), "/" + top));
      }
    }
    argv.addAll(
        List.of(
            "--dev",
            "/dev",
            "--proc",
            "/proc",
            "--tmpfs",
            "/tmp",
            "--unshare-all",
            "--die-with-parent",
            "--",
            "/usr/bin/true"));
    return argv;
  }

  /**
   * Builds an OCI bundle for runc with the root filesystem of the {@code host} template: an empty
   * read-only root with the host's {@code /usr} and {@code /etc} bound read-only and its top-level
   * links ({@code /bin -> usr/bin} on a merged-usr host) reproduced. The process is {@code true},
   * without a terminal.
   */
  static Path runcBundle(Path runc, Path dir) throws IOException, InterruptedException {
    Path rootfs = Files.createDirectories(dir.resolve("rootfs"));
    for (String d : List.of("proc", "dev", "sys", "tmp", "usr", "etc")) {
      Files.createDirectories(rootfs.resolve(d));
    }
    var binds = Json.createArrayBuilder();
    for (String top : List.of("usr", "etc", "bin", "sbin", "lib", "lib64")) {
      Path host = Path.of("/", top);
      if (Files.isSymbolicLink(host)) {
        Files.createSymbolicLink(rootfs.resolve(top), Files.readSymbolicLink(host));
      } else if (Files.isDirectory(host)) {
        Files.createDirectories(rootfs.resolve(top));
        binds.add(
            Json.createObjectBuilder()
                .add("destination", "/" + top)
                .add("type", "bind")
                .add("source", host.toString())
                .add("options", Json.createArrayBuilder().add("rbind").add("ro")));
      }
    }
    Process spec =
        new ProcessBuilder(runc.toString(), "spec")
            .directory(dir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
    if (spec.waitFor() != 0) {
      throw new IOException("runc spec failed");
    }
    Path config = dir.resolve("config.json");
    JsonObject original;
    try (Reader r = Files.newBufferedReader(config);
        JsonReader reader = Json.createReader(r)) {
      original = reader.readObject();
    }
    var mounts = Json.createArrayBuilder(original.getJsonArray("mounts"));
    binds.build().forEach(mounts::add);
    JsonObject patched =
        Json.createObjectBuilder(original)
            .add(
                "process",
                Json.createObjectBuilder(original.getJsonObject("process"))
                    .add("terminal", false)
                    .add("args", Json.createArrayBuilder().add("/usr/bin/true")))
            .add("root", Json.createObjectBuilder().add("path", "rootfs").add("readonly", true))
            .add("mounts", mounts)
            .build();
    try (Writer w = Files.newBufferedWriter(config);
        JsonWriter writer = Json.createWriter(w)) {
      writer.writeObject(patched);
    }
    return dir;
  }

  /** {@code runc run} of the bundle, a fresh container id per run. */
  static Samples timeRunc(Path runc, Path bundle, int iterations, Path state, int firstId)
      throws IOException, InterruptedException {
    Samples s = new Samples();
    for (int i = firstId; i < firstId + iterations; i++) {
      List<String> command =
          List.of(
              runc.toString(),
              "--root",
              state.toString(),
              "run",
              "--bundle",
              bundle.toString(),
              "kora-bench-" + ProcessHandle.current().pid() + "-" + i);
      long t0 = System.nanoTime();
      runQuietly(command);
      s.add(System.nanoTime() - t0);
    }
    return s;
  }
}
