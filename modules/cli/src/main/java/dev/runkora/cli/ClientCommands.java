package dev.runkora.cli;

import dev.runkora.api.ApiException;
import dev.runkora.api.ClaimMount;
import dev.runkora.api.ClaimRequest;
import dev.runkora.api.ClaimResponse;
import dev.runkora.api.ExecOutput;
import dev.runkora.api.ExecRequest;
import dev.runkora.api.ExecResult;
import dev.runkora.api.Info;
import dev.runkora.api.PoolKey;
import dev.runkora.api.PoolSpec;
import dev.runkora.api.PoolStatus;
import dev.runkora.api.SandboxRow;
import dev.runkora.api.SandboxdClient;
import jakarta.json.Json;
import jakarta.json.JsonArrayBuilder;
import java.io.InputStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

/** The commands that talk to a running daemon: run, claim, exec, release, renew, info, ... */
final class ClientCommands {
  static final Args.Spec RUN =
      new Args.Spec(
          Set.of(
              "template",
              "size",
              "net",
              "ttl",
              "env",
              "cwd",
              "timeout",
              "claim-env",
              "mount",
              "workspace"),
          Set.of("quiet", "stdin"),
          0);
  static final Args.Spec CLAIM =
      new Args.Spec(
          Set.of("template", "size", "net", "ttl", "ref", "env", "mount", "workspace"),
          Set.of("json"),
          -1);
  static final Args.Spec EXEC =
      new Args.Spec(Set.of("token", "env", "cwd", "timeout"), Set.of("json", "stdin"), 1);
  static final Args.Spec RELEASE = new Args.Spec(Set.of("token"), Set.of(), -1);
  static final Args.Spec RENEW = new Args.Spec(Set.of("token", "ttl"), Set.of("json"), -1);
  static final Args.Spec INFO = new Args.Spec(Set.of(), Set.of("json"), -1);
  static final Args.Spec POOLS = new Args.Spec(Set.of(), Set.of("json"), -1);
  static final Args.Spec SANDBOXES = new Args.Spec(Set.of("ref"), Set.of("json"), -1);

  private final Console console;
  private final Connection connection;

  ClientCommands(Console console) {
    this.console = console;
    this.connection = Connection.resolve(console);
  }

  /** Calls the daemon, turning an API failure into a message the user can act on. */
  private <T> T call(java.util.function.Function<SandboxdClient, T> action) {
    try (SandboxdClient client = connection.client()) {
      return action.apply(client);
    } catch (ApiException e) {
      throw connection.explain(e);
    }
  }

  private static ClaimRequest claimRequest(Args args) {
    return new ClaimRequest(
        args.value("template", Defaults.TEMPLATE),
        args.value("net", PoolKey.DEFAULT_NET),
        args.value("size", PoolKey.DEFAULT_SIZE),
        args.number("ttl", 0, 0, 86400),
        args.value("ref", ""),
        false,
        args.pairs("claim-env"),
        mounts(args));
  }

  /** {@code --mount HOST:PATH[:ro]} and {@code --workspace NAME:PATH}. */
  static List<ClaimMount> mounts(Args args) {
    List<ClaimMount> mounts = new ArrayList<>();
    for (String m : args.values("mount")) {
      String[] parts = m.split(":", -1);
      boolean ro = parts.length == 3 && parts[2].equals("ro");
      if (parts.length < 2
          || parts.length > 3
          || (parts.length == 3 && !ro && !parts[2].equals("rw"))) {
        throw new UsageException("--mount needs HOST_PATH:SANDBOX_PATH[:ro], not " + m);
      }
      mounts.add(mount(() -> ClaimMount.hostPath(parts[0], parts[1], ro), "--mount", m));
    }
    for (String w : args.values("workspace")) {
      String[] parts = w.split(":", -1);
      if (parts.length != 2 || parts[0].isEmpty()) {
        throw new UsageException("--workspace needs NAME:SANDBOX_PATH, not " + w);
      }
      mounts.add(mount(() -> ClaimMount.workspace(parts[0], parts[1], 0), "--workspace", w));
    }
    return mounts;
  }

  private static ClaimMount mount(
      java.util.function.Supplier<ClaimMount> make, String option, String text) {
    try {
      return make.get();
    } catch (IllegalArgumentException e) {
      throw new UsageException(option + " " + text + ": " + e.getMessage());
    }
  }

  private static ExecRequest execRequest(Args args) {
    if (args.command().isEmpty()) {
      throw new UsageException("missing the command to run (after --)");
    }
    return new ExecRequest(
        args.command(),
        args.value("cwd", ""),
        args.pairs("env"),
        args.number("timeout", 0, 0, Integer.MAX_VALUE));
  }

  /** {@code run}: claim, exec streamed, release; exits with the command's exit code. */
  int run(Args args) {
    ClaimRequest claim = claimRequest(args);
    ExecRequest exec = execRequest(args);
    try (SandboxdClient client = connection.client()) {
      ClaimResponse sandbox;
      long t0;
      try {
        // The first request of a JVM loads the HTTP client; keep that out of the claim's time.
        client.healthz();
        t0 = System.nanoTime();
        sandbox = client.claim(claim);
      } catch (ApiException e) {
        throw connection.explain(e);
      }
      long claimed = System.nanoTime();
      if (sandbox.isRedirect()) {
        throw new CliException("the node is full; peers with room: " + sandbox.redirect());
      }
      AtomicBoolean released = new AtomicBoolean();
      Runnable release =
          () -> {
            if (released.compareAndSet(false, true)) {
              client.releaseIfPresent(sandbox.id(), sandbox.token());
            }
          };
      // Ctrl-C while the command runs still gives the sandbox back.
      Thread hook = new Thread(release, "kora-run-release");
      Runtime.getRuntime().addShutdownHook(hook);
      int exit;
      long executed;
      try {
        exit =
            client.execStream(
                sandbox.id(),
                sandbox.token(),
                exec,
                args.flag("stdin") ? console.in() : null,
                output(exec));
        executed = System.nanoTime();
      } catch (ApiException e) {
        throw execFailure(e);
      } finally {
        try {
          release.run();
        } catch (ApiException e) {
          console.err().println("kora: could not release " + sandbox.id() + ": " + e.error());
        }
        try {
          Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
          // Shutting down already: the hook runs (and finds the sandbox released).
        }
      }
      if (!args.flag("quiet")) {
        console
            .err()
            .printf(
                Locale.ROOT,
                "kora: %s (%s) claim %s, exec %s, exit %d%n",
                sandbox.id(),
                claim.key(),
                millis(claimed - t0),
                millis(executed - claimed),
                exit);
      }
      return exit;
    }
  }

  /** {@code claim}: prints {@code ID TOKEN DEADLINE}, or the answer as JSON. */
  int claim(Args args) {
    args.atMostPositionals(0);
    // For claim, --env is the claim-time environment (run uses --env for the exec).
    ClaimRequest claim = claimRequest(args).withEnv(args.pairs("env"));
    ClaimResponse r = call(c -> c.claim(claim));
    if (args.flag("json")) {
      console.out().println(r.toJson());
    } else if (r.isRedirect()) {
      console.out().println("redirect " + String.join(" ", r.redirect()));
    } else {
      console.out().println(r.id() + "\t" + r.token() + "\t" + r.deadline());
    }
    return 0;
  }

  /** {@code exec}: streamed by default; {@code --json} runs the buffered exec and prints it. */
  int exec(Args args) {
    String id = args.positional(0, "the sandbox id: kora exec ID -- CMD...");
    ExecRequest exec = execRequest(args);
    String token = sandboxToken(args, id);
    if (args.flag("json")) {
      ExecResult result = call(c -> c.exec(id, token, exec));
      console.out().println(result.toJson());
      return result.exitCode();
    }
    InputStream stdin = args.flag("stdin") ? console.in() : null;
    try (SandboxdClient client = connection.client()) {
      return client.execStream(id, token, exec, stdin, output(exec));
    } catch (ApiException e) {
      throw execFailure(e);
    }
  }

  /**
   * An exec the daemon refused: a command that does not exist or cannot run exits 127 or 126, as in
   * a shell; anything else is a failure of kora (1).
   */
  private CliException execFailure(ApiException e) {
    CliException failure = connection.explain(e);
    if (e.status() == 400 && e.error().contains("does not exist")) {
      return new CliException(e.error(), 127, e);
    }
    if (e.status() == 400 && e.error().contains("not executable")) {
      return new CliException(e.error(), 126, e);
    }
    return failure;
  }

  /** {@code release}: already gone counts as released. */
  int release(Args args) {
    args.atMostPositionals(1);
    String id = args.positional(0, "the sandbox id: kora release ID");
    // Root acts by id on release, so the node token will do when no sandbox token is given.
    String token = args.value("token").or(() -> console.env("KORA_SANDBOX_TOKEN")).orElse("");
    boolean released =
        call(c -> c.releaseIfPresent(id, token.isEmpty() ? connection.token() : token));
    if (!released) {
      console.err().println("kora: " + id + " was already gone");
    }
    return 0;
  }

  /** {@code renew}: prints the granted deadline. */
  int renew(Args args) {
    args.atMostPositionals(1);
    String id = args.positional(0, "the sandbox id: kora renew ID [--ttl SECONDS]");
    long ttl = args.number("ttl", 0, 0, Long.MAX_VALUE);
    String token = args.value("token").or(() -> console.env("KORA_SANDBOX_TOKEN")).orElse("");
    Instant deadline = call(c -> c.renew(id, token.isEmpty() ? connection.token() : token, ttl));
    if (args.flag("json")) {
      console
          .out()
          .println(Json.createObjectBuilder().add("deadline", deadline.toString()).build());
    } else {
      console.out().println(deadline);
    }
    return 0;
  }

  int info(Args args) {
    args.atMostPositionals(0);
    Info info = call(SandboxdClient::info);
    if (args.flag("json")) {
      console.out().println(info.toJson());
      return 0;
    }
    console.out().println("daemon    " + connection.url());
    console
        .out()
        .println(
            "claimed   "
                + info.claimed()
                + (info.hibernated() > 0 ? " (" + info.hibernated() + " hibernated)" : ""));
    if (info.draining()) {
      console.out().println("draining  yes");
    }
    if (info.atCapacity()) {
      console.out().println("capacity  full: " + info.atCapacityReason());
    }
    console.out().println();
    printPools(info);
    return 0;
  }

  /** {@code pools}: lists pools; {@code pools set T[/NET[/SIZE]]=WARM ...} replaces them. */
  int pools(Args args) {
    List<String> p = args.positionals();
    Info info;
    if (!p.isEmpty()) {
      if (!p.getFirst().equals("set")) {
        throw new UsageException("unknown pools command " + p.getFirst() + " (try: pools set)");
      }
      List<PoolSpec> specs = new ArrayList<>();
      for (String s : p.subList(1, p.size())) {
        specs.add(parsePool(s));
      }
      info = call(c -> c.putPools(specs));
    } else {
      info = call(SandboxdClient::info);
    }
    if (args.flag("json")) {
      JsonArrayBuilder a = Json.createArrayBuilder();
      info.pools().forEach(x -> a.add(x.toJson()));
      console.out().println(Json.createObjectBuilder().add("pools", a).build());
    } else {
      printPools(info);
    }
    return 0;
  }

  /** Parses {@code TEMPLATE[/NET[/SIZE]]=WARM}. */
  static PoolSpec parsePool(String s) {
    int eq = s.lastIndexOf('=');
    if (eq <= 0) {
      throw new UsageException("a pool is TEMPLATE[/NET[/SIZE]]=WARM, not " + s);
    }
    // Templates may hold slashes (registry paths); net and size never do, so split from the end.
    String keyText = s.substring(0, eq);
    String[] parts = keyText.split("/");
    String template = keyText;
    String net = "";
    String size = "";
    if (parts.length >= 3 && isSize(parts[parts.length - 1]) && isNet(parts[parts.length - 2])) {
      size = parts[parts.length - 1];
      net = parts[parts.length - 2];
      template = keyText.substring(0, keyText.length() - net.length() - size.length() - 2);
    } else if (parts.length >= 2 && isNet(parts[parts.length - 1])) {
      net = parts[parts.length - 1];
      template = keyText.substring(0, keyText.length() - net.length() - 1);
    }
    int warm;
    try {
      warm = Integer.parseInt(s.substring(eq + 1));
    } catch (NumberFormatException e) {
      throw new UsageException("warm count must be a whole number: " + s);
    }
    if (warm < 0) {
      throw new UsageException("warm count must not be negative: " + s);
    }
    return PoolSpec.of(new PoolKey(template, net, size), warm);
  }

  private static boolean isNet(String s) {
    return s.equals("none") || s.equals("egress");
  }

  private static boolean isSize(String s) {
    return Set.of("small", "medium", "large", "xlarge", "2xlarge").contains(s);
  }

  private void printPools(Info info) {
    if (info.pools().isEmpty()) {
      console.out().println("no pools");
      return;
    }
    Table t = new Table("POOL", "WARM", "TARGET", "REFILLING", "READY");
    for (PoolStatus p : info.pools()) {
      t.row(p.key(), p.warm(), p.target(), p.refilling(), p.golden() ? "yes" : "no");
    }
    t.print(console.out());
  }

  int sandboxes(Args args) {
    args.atMostPositionals(0);
    List<SandboxRow> rows = call(c -> c.list(args.value("ref", "")));
    if (args.flag("json")) {
      JsonArrayBuilder a = Json.createArrayBuilder();
      rows.forEach(r -> a.add(r.toJson()));
      console.out().println(Json.createObjectBuilder().add("sandboxes", a).build());
      return 0;
    }
    if (rows.isEmpty()) {
      console.out().println("no sandboxes");
      return 0;
    }
    Table t = new Table("ID", "POOL", "CLAIMED", "DEADLINE", "REF");
    for (SandboxRow r : rows) {
      t.row(
          r.id(),
          r.key(),
          r.claimedAt().map(Instant::toString).orElse("-"),
          r.deadline(),
          r.claimRef().isEmpty() ? "-" : r.claimRef());
    }
    t.print(console.out());
    return 0;
  }

  /** Streams to this console and says so when the daemon's timeout ended the command. */
  private ExecOutput output(ExecRequest exec) {
    ExecOutput to = ExecOutput.to(console.out(), console.err());
    return new ExecOutput() {
      @Override
      public void stdout(byte[] data) {
        to.stdout(data);
      }

      @Override
      public void stderr(byte[] data) {
        to.stderr(data);
      }

      @Override
      public void timedOut() {
        console.err().println("kora: the command timed out after " + exec.timeoutSeconds() + " s");
      }
    };
  }

  /** The sandbox token: {@code --token}, {@code KORA_SANDBOX_TOKEN}, or asked of the daemon. */
  private String sandboxToken(Args args, String id) {
    return args.value("token")
        .or(() -> console.env("KORA_SANDBOX_TOKEN"))
        .orElseGet(
            () -> {
              // Exec takes the sandbox token only; root may read it from the sandbox's row.
              String token = call(c -> c.get(id)).token();
              if (token.isEmpty()) {
                throw new CliException(
                    "the daemon did not hand out the token of "
                        + id
                        + ": pass --token or set KORA_SANDBOX_TOKEN");
              }
              return token;
            });
  }

  static String millis(long nanos) {
    return String.format(Locale.ROOT, "%.1f ms", nanos / 1e6);
  }
}
