package dev.runkora.cli;

import dev.runkora.cli.bench.Bench;
import java.util.List;
import java.util.Set;

/**
 * The {@code kora} command line. Exit status: the command's own for {@code run} and {@code exec},
 * otherwise 0 on success, 1 on failure, 2 on a wrong command line.
 */
public final class Main {
  private static final String USAGE =
      """
      usage: kora COMMAND [OPTIONS]

      daemon:
        up         start kora-sandboxd on 127.0.0.1:7777 with warm `host` sandboxes (Ctrl-C stops)
                   --listen HOST:PORT  --data-dir DIR  --token-file FILE  --warm N
                   --runtime NAME (bwrap|process)  --template T  --config FILE
        sandboxd   run the daemon alone, logging only (same options as up)
        bench      measure kora-sandboxd against baselines (starts its own daemon)
                   --iterations N (200)  --sandboxes N (500)  --clients N (50)  --seconds S (5)
        vk-sandbox the virtual-kubelet node in front of a sandboxd (Pods become claims)
                   [flags]  `kora vk-sandbox --help` lists them; --version

      sandboxes:
        run [--template T] [--size S] [--net N] [--env K=V] [--cwd DIR] [--timeout S] [--stdin]
            -- CMD...  claim, run CMD with its output streamed, release; exits with CMD's status
                   (--stdin forwards this terminal's standard input to CMD)
                   --mount HOST_PATH:PATH[:ro] and --workspace NAME:PATH bind into the sandbox
        claim      [--template T] [--size S] [--net N] [--ttl S] [--ref REF] [--env K=V]
                   [--mount HOST_PATH:PATH[:ro]] [--workspace NAME:PATH] [--json]
        exec ID    [--token T] [--env K=V] [--cwd DIR] [--timeout S] [--stdin] [--json] -- CMD...
        release ID [--token T]
        renew ID   [--ttl S] [--token T]
        sandboxes  [--ref REF] [--json]
        info       [--json]
        pools      [--json] | pools set TEMPLATE[/NET[/SIZE]]=WARM ...

      The client commands find the daemon through KORA_URL and KORA_TOKEN (or KORA_TOKEN_FILE),
      else through the daemon.json that `kora up` writes to ~/.local/share/kora.
      """;

  private Main() {}

  /** Runs the CLI and exits with its status. */
  public static void main(String[] args) {
    int status = run(List.of(args), Console.system());
    System.out.flush();
    System.exit(status);
  }

  /** Runs one command line; returns the exit status. */
  static int run(List<String> argv, Console console) {
    if (argv.isEmpty()) {
      console.err().print(USAGE);
      return 2;
    }
    String command = argv.getFirst();
    List<String> rest = argv.subList(1, argv.size());
    try {
      return dispatch(command, rest, console);
    } catch (UsageException e) {
      console.err().println("kora " + command + ": " + e.getMessage());
      console.err().println("run `kora help` for the commands and their options");
      return 2;
    } catch (CliException e) {
      console.err().println("kora " + command + ": " + e.getMessage());
      if (console.env("KORA_DEBUG").isPresent()) {
        e.printStackTrace(console.err());
      }
      return e.status();
    } catch (RuntimeException e) {
      console.err().println("kora " + command + ": unexpected failure: " + e);
      e.printStackTrace(console.err());
      return 1;
    }
  }

  private static int dispatch(String command, List<String> rest, Console console) {
    return switch (command) {
      case "help", "-h", "--help" -> help(console);
      case "up" -> daemon(rest, console, DaemonCommands::up);
      case "sandboxd" -> daemon(rest, console, DaemonCommands::sandboxd);
      case "bench" -> {
        Args args = Args.parse(rest, BENCH);
        yield args.flag("help") ? help(console) : Bench.run(benchOptions(args), console.out());
      }
      case "vk-sandbox" ->
          // The launcher starts module dev.runkora.vk for this command; the CLI does not read it.
          throw new CliException(
              "vk-sandbox is its own program (module dev.runkora.vk): start it with ./kora"
                  + " vk-sandbox, which puts it and client-java on the module path");
      case "run" -> client(console, rest, ClientCommands.RUN, ClientCommands::run);
      case "claim" -> client(console, rest, ClientCommands.CLAIM, ClientCommands::claim);
      case "exec" -> client(console, rest, ClientCommands.EXEC, ClientCommands::exec);
      case "release" -> client(console, rest, ClientCommands.RELEASE, ClientCommands::release);
      case "renew" -> client(console, rest, ClientCommands.RENEW, ClientCommands::renew);
      case "info" -> client(console, rest, ClientCommands.INFO, ClientCommands::info);
      case "pools" -> client(console, rest, ClientCommands.POOLS, ClientCommands::pools);
      case "sandboxes" ->
          client(console, rest, ClientCommands.SANDBOXES, ClientCommands::sandboxes);
      default ->
          throw new UsageException(
              "unknown command " + command + " (commands: " + String.join(", ", COMMANDS) + ")");
    };
  }

  private static final List<String> COMMANDS =
      List.of(
          "up",
          "sandboxd",
          "bench",
          "vk-sandbox",
          "run",
          "claim",
          "exec",
          "release",
          "renew",
          "sandboxes",
          "info",
          "pools",
          "help");

  private static final Args.Spec BENCH =
      new Args.Spec(
          Set.of("sandboxes", "iterations", "runtime", "clients", "seconds"), Set.of(), -1);

  static Bench.Options benchOptions(Args args) {
    args.atMostPositionals(0);
    return new Bench.Options(
        (int) args.number("sandboxes", 500, 0, 100_000),
        (int) args.number("iterations", 200, 10, 1_000_000),
        args.value("runtime", "bwrap"),
        (int) args.number("clients", 50, 1, 10_000),
        (int) args.number("seconds", 5, 1, 3600));
  }

  private interface ClientCommand {
    int run(ClientCommands commands, Args args);
  }

  private interface DaemonCommand {
    int run(Args args, Console console);
  }

  private static int client(
      Console console, List<String> rest, Args.Spec spec, ClientCommand command) {
    Args args = Args.parse(rest, spec);
    if (args.flag("help")) {
      return help(console);
    }
    return command.run(new ClientCommands(console), args);
  }

  private static int daemon(List<String> rest, Console console, DaemonCommand command) {
    Args args = Args.parse(rest, DaemonCommands.SPEC);
    return args.flag("help") ? help(console) : command.run(args, console);
  }

  private static int help(Console console) {
    console.out().print(USAGE);
    return 0;
  }
}
