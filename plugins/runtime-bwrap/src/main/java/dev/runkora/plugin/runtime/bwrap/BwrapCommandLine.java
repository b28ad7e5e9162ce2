package dev.runkora.plugin.runtime.bwrap;

import dev.runkora.spi.runtime.MountSpec;
import dev.runkora.spi.runtime.NetworkMode;
import dev.runkora.spi.runtime.SandboxSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Builds the command lines this runtime runs: bubblewrap to make a sandbox, the exec agent's script
 * for a command, nsenter to enter one for a live mount. Pure functions of their inputs, so they are
 * unit-tested as text.
 */
final class BwrapCommandLine {

  /** Where the host's static busybox appears inside every sandbox. */
  static final String BUSYBOX = "/dev/.kora/busybox";

  /** Where the sandbox's live-mount area appears inside it (a slave of the host's shared one). */
  static final String LIVE = "/dev/.kora/live";

  /** Where the exec agent's requests appear inside the sandbox (below the live area). */
  static final String EXEC = LIVE + "/exec";

  /**
   * The sandbox's exec agent, a loop of the static busybox's shell. It reads request ids from the
   * control pipe (held open read-write, so it never sees an end) and runs each request in a child:
   * that child opens the request's status pipe, forks the command with the request's pipes as
   * stdin, stdout and stderr, reports the command's pid, waits, and reports its exit code (128 +
   * the signal for a signal). The command's shell reads the request's script, which changes
   * directory, sets exactly the request's environment and execs the program. {@code jobs} reaps the
   * finished children. An id that is not a number is ignored.
   *
   * <p>Once the control pipe is open the agent writes {@code ready} to the pipe {@code ready},
   * which the host holds open while it creates the sandbox and waits on (see {@link #READY}). It
   * opens that pipe read-write, so the write never blocks, not even when nobody reads any more.
   */
  static final String AGENT =
      "exec 7<>"
          + EXEC
          + "/ctl || exit 1; echo ready 1<>"
          + EXEC
          + "/ready; while read -r id <&7; do jobs >/dev/null;"
          + " case $id in ''|*[!0-9]*) continue;; esac; d="
          + EXEC
          + "/$id;"
          + " { ( exec 7<&- 8>&-; . \"$d/cmd\" ) <\"$d/in\" >\"$d/out\" 2>\"$d/err\" &"
          + " echo $! >&8; wait $!; echo $? >&8; } 7<&- 8>\"$d/status\" & done";

  /** The line the agent writes to its ready pipe once it takes requests. */
  static final String READY = "ready";

  /**
   * The program that keeps a sandbox alive: the exec agent. bubblewrap without {@code --as-pid-1}
   * runs its own small init as pid 1 of the sandbox's pid namespace: it waits for every child, so
   * orphans of commands (which the kernel re-parents to pid 1) are reaped, and it lives exactly as
   * long as its first child, this agent, from the host's static busybox so that it runs in any root
   * filesystem. Killing pid 1 makes the kernel kill everything in the namespace.
   */
  static final List<String> KEEP_ALIVE = List.of(BUSYBOX, "sh", "-c", AGENT, "kora-agent");

  /** Variables of the agent's shell that a request cannot set with {@code export}. */
  private static final java.util.Set<String> SHELL_SPECIAL =
      java.util.Set.of(
          "IFS",
          "PPID",
          "OPTIND",
          "OPTARG",
          "PS1",
          "PS2",
          "PS4",
          "LINENO",
          "RANDOM",
          "SECONDS",
          "HISTFILE",
          "HISTSIZE",
          "ENV",
          "MAIL",
          "MAILPATH",
          "MAILCHECK",
          "FUNCNAME");

  private static final java.util.regex.Pattern SHELL_NAME =
      java.util.regex.Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

  /**
   * Returns the script the exec agent runs for one command: change to the working directory (exit
   * 126 when that fails), drop the agent shell's own exported variables, export exactly the given
   * environment and exec the program (already resolved to a path, so that the shell never runs one
   * of busybox's built-in applets instead of the sandbox's program) with its own {@code argv[0]}. A
   * variable the shell cannot export is passed through busybox {@code env -i}.
   */
  static String agentScript(
      String workingDirectory, Map<String, String> env, String program, List<String> argv) {
    var script = new StringBuilder();
    script.append("cd -- ").append(quote(workingDirectory)).append(" || exit 126\n");
    script.append("unset SHLVL OLDPWD PWD PATH\n");
    boolean plain =
        env.keySet().stream()
            .allMatch(key -> SHELL_NAME.matcher(key).matches() && !SHELL_SPECIAL.contains(key));
    if (plain) {
      env.forEach(
          (key, value) ->
              script.append("export ").append(key).append('=').append(quote(value)).append('\n'));
      script.append("exec -a ").append(quote(argv.getFirst())).append(' ').append(quote(program));
    } else {
      script.append("exec ").append(BUSYBOX).append(" env -i");
      env.forEach((key, value) -> script.append(' ').append(quote(key + "=" + value)));
      script.append(' ').append(quote(program));
    }
    for (var argument : argv.subList(1, argv.size())) {
      script.append(' ').append(quote(argument));
    }
    return script.append('\n').toString();
  }

  /** Quotes a word for the shell: single quotes, each quote in it as {@code '\''}. */
  static String quote(String word) {
    return "'" + word.replace("'", "'\\''") + "'";
  }

  /** The standard PATH when the sandbox's environment gives none. */
  static final String DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

  private BwrapCommandLine() {}

  /**
   * Returns the bubblewrap command that makes a sandbox: namespaces, the overlay root, /proc, /dev,
   * /tmp, the spec's binds, the busybox and the live-mount area, and the keep-alive.
   */
  static List<String> create(BwrapSettings settings, SandboxSpec spec, SandboxLayout layout) {
    var argv = new ArrayList<String>();
    argv.add(settings.bwrap().toString());
    if (settings.userNamespace()) {
      argv.add("--unshare-user");
    }
    argv.addAll(List.of("--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"));
    if (spec.network() == NetworkMode.NONE) {
      argv.add("--unshare-net");
    }
    argv.addAll(List.of("--hostname", spec.name()));
    argv.addAll(List.of("--bind", layout.root().toString(), "/"));
    argv.addAll(List.of("--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"));
    for (var mount : spec.mounts()) {
      var link = linkIntoAnotherBind(spec, mount);
      if (link.isPresent()) {
        argv.addAll(List.of("--symlink", link.get(), mount.sandboxPath()));
        continue;
      }
      argv.add(mount.readOnly() ? "--ro-bind" : "--bind");
      argv.add(mount.hostPath().toString());
      argv.add(mount.sandboxPath());
    }
    argv.addAll(List.of("--dir", "/dev/.kora"));
    argv.addAll(List.of("--ro-bind", settings.busybox().toString(), BUSYBOX));
    // Read-only, so the sandbox cannot swap a directory of the live area for a symbolic link
    // before the host mounts onto it; the mounts that propagate below keep their own flags.
    argv.addAll(List.of("--ro-bind", layout.live().toString(), LIVE));
    if (!spec.writableRoot()) {
      argv.addAll(List.of("--remount-ro", "/"));
    }
    argv.addAll(List.of("--chdir", "/", "--clearenv"));
    baseEnvironment(spec.env())
        .forEach((key, value) -> argv.addAll(List.of("--setenv", key, value)));
    // Mounting is the host's job (live mounts enter through nsenter): without CAP_SYS_ADMIN in its
    // user namespace, nothing in the sandbox can remount a read-only bind writable again.
    argv.addAll(List.of("--cap-drop", "CAP_SYS_ADMIN"));
    argv.add("--");
    argv.addAll(KEEP_ALIVE);
    return argv;
  }

  /**
   * Returns the link target to make instead of a read-only bind whose host path is a top-level
   * symbolic link into another read-only bind of the same spec, such as {@code /bin -> usr/bin}
   * next to a bind of {@code /usr} on a merged-usr host. Inside, the link resolves to the same host
   * directory, read-only, through the other bind; the sandbox sees the same files as with a bind of
   * its own, and bubblewrap saves a bind mount (each of which re-reads the host's whole mount
   * table). Empty when the mount is not such a link, or when the root filesystem has something of
   * its own at that path (which a bind would cover and a link cannot replace).
   */
  static Optional<String> linkIntoAnotherBind(SandboxSpec spec, MountSpec mount) {
    var host = mount.hostPath();
    if (!mount.readOnly()
        || !host.isAbsolute()
        || host.getNameCount() != 1
        || !host.toString().equals(mount.sandboxPath())
        || !Files.isSymbolicLink(host)) {
      return Optional.empty();
    }
    try {
      var target = Files.readSymbolicLink(host);
      var resolved = host.getParent().resolve(target).normalize();
      if (target.isAbsolute()
          || target.toString().isEmpty()
          || !resolved.equals(resolved.toRealPath())
          || Files.exists(
              spec.rootFilesystem().resolve(host.getFileName()), LinkOption.NOFOLLOW_LINKS)) {
        return Optional.empty();
      }
      for (var other : spec.mounts()) {
        var otherHost = other.hostPath();
        if (other != mount
            && other.readOnly()
            && otherHost.isAbsolute()
            && otherHost.toString().equals(other.sandboxPath())
            && !otherHost.equals(resolved)
            && resolved.startsWith(otherHost)
            && otherHost.equals(otherHost.toRealPath())) {
          return Optional.of(target.toString());
        }
      }
    } catch (IOException e) {
      // Dangling or unreadable: bind it as asked, and let bubblewrap report what is wrong.
    }
    return Optional.empty();
  }

  /**
   * Returns nsenter entering every namespace of a sandbox and its root, starting in that root,
   * followed by {@code --}: what comes next runs inside the sandbox.
   */
  static List<String> inside(BwrapSettings settings, SandboxState state) {
    var argv = new ArrayList<>(enter(settings, state));
    argv.addAll(List.of("--root", "--wd=/proc/" + state.initPid() + "/root", "--"));
    return argv;
  }

  /** Returns nsenter entering every namespace of a sandbox, without a root or command yet. */
  static List<String> enter(BwrapSettings settings, SandboxState state) {
    var argv = new ArrayList<String>();
    argv.add(settings.nsenter().toString());
    argv.addAll(List.of("--target", Long.toString(state.initPid())));
    if (state.userNamespace()) {
      argv.add("--user");
    }
    argv.addAll(
        List.of(
            "--mount", "--uts", "--ipc", "--net", "--pid", "--cgroup", "--preserve-credentials"));
    return argv;
  }

  /** Returns the environment every command starts from: the spec's, with a PATH if it has none. */
  static Map<String, String> baseEnvironment(Map<String, String> env) {
    var result = new TreeMap<>(env);
    result.putIfAbsent("PATH", DEFAULT_PATH);
    return result;
  }
}
