package dev.runkora.pluginhost;

import dev.runkora.spi.core.KoraException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Prints what the plugin host finds, one line per provider and per problem; exits 1 when something
 * could not be loaded. {@code java -m dev.runkora.pluginhost/dev.runkora.pluginhost.PluginList
 * [--plugin-dir DIR]} lets an operator check a plugin directory before starting a daemon with it.
 */
public final class PluginList {

  private PluginList() {}

  /**
   * Lists the providers.
   *
   * @param args {@code [--plugin-dir DIR]}
   */
  public static void main(String[] args) {
    Optional<Path> directory = Optional.empty();
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals("--plugin-dir") && i + 1 < args.length) {
        directory = Optional.of(Path.of(args[++i]));
      } else {
        System.err.println("usage: PluginList [--plugin-dir DIR]");
        System.exit(2);
      }
    }
    try {
      System.exit(print(PluginHost.load(directory), System.out));
    } catch (KoraException e) {
      System.err.println(e.getMessage());
      System.exit(1);
    }
  }

  /** Prints a host's providers and problems; returns 0, or 1 when there are problems. */
  static int print(PluginHost host, PrintStream out) {
    for (var info : host.plugins()) {
      out.printf(
          "%-10s %s: %s %s%n",
          info.extensionPoint(), info.where(), info.description(), info.capabilities());
    }
    for (var problem : host.problems()) {
      out.printf("problem    %s%n", problem.message());
    }
    return host.problems().isEmpty() ? 0 : 1;
  }
}
