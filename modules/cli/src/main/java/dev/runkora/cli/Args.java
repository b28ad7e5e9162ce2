package dev.runkora.cli;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A parsed command line: options ({@code --name value}, {@code --name=value}), flags ({@code
 * --json}), positionals, and a trailing command.
 *
 * <p>The trailing command is everything after {@code --}, or, when the spec says so, everything
 * from the positional that follows the expected ones ({@code kora run echo hi} and {@code kora run
 * -- echo hi} are the same). Options after the command belong to the command.
 */
final class Args {
  /**
   * What a command accepts.
   *
   * @param valued options that take a value; repeating one keeps every value
   * @param flags options without a value
   * @param positionals how many positionals come before the trailing command; -1 when the command
   *     takes no trailing command (then every positional is kept and {@code --} is an error)
   */
  record Spec(Set<String> valued, Set<String> flags, int positionals) {
    Spec {
      valued = Set.copyOf(valued);
      flags = Set.copyOf(flags);
    }

    boolean takesCommand() {
      return positionals >= 0;
    }
  }

  private final Map<String, List<String>> values;
  private final Set<String> flags;
  private final List<String> positionals;
  private final List<String> command;

  private Args(
      Map<String, List<String>> values,
      Set<String> flags,
      List<String> positionals,
      List<String> command) {
    this.values = values;
    this.flags = flags;
    this.positionals = positionals;
    this.command = command;
  }

  /** Parses {@code argv} against {@code spec}; {@code -h} and {@code --help} are always flags. */
  static Args parse(List<String> argv, Spec spec) {
    Map<String, List<String>> values = new HashMap<>();
    Set<String> flags = new java.util.HashSet<>();
    List<String> positionals = new ArrayList<>();
    List<String> command = new ArrayList<>();
    for (int i = 0; i < argv.size(); i++) {
      String arg = argv.get(i);
      if (arg.equals("--")) {
        if (!spec.takesCommand()) {
          throw new UsageException("this command takes no command after --");
        }
        command.addAll(argv.subList(i + 1, argv.size()));
        break;
      }
      if (arg.equals("-h") || arg.equals("--help")) {
        flags.add("help");
        continue;
      }
      if (arg.startsWith("--") && arg.length() > 2) {
        String name = arg.substring(2);
        String value = null;
        int eq = name.indexOf('=');
        if (eq >= 0) {
          value = name.substring(eq + 1);
          name = name.substring(0, eq);
        }
        if (spec.valued().contains(name)) {
          if (value == null) {
            if (i + 1 >= argv.size()) {
              throw new UsageException("option --" + name + " needs a value");
            }
            value = argv.get(++i);
          }
          values.computeIfAbsent(name, k -> new ArrayList<>()).add(value);
        } else if (spec.flags().contains(name)) {
          if (value != null) {
            throw new UsageException("option --" + name + " takes no value");
          }
          flags.add(name);
        } else {
          throw new UsageException("unknown option --" + name);
        }
        continue;
      }
      if (arg.startsWith("-") && arg.length() > 1) {
        throw new UsageException("unknown option " + arg);
      }
      if (spec.takesCommand() && positionals.size() == spec.positionals()) {
        command.addAll(argv.subList(i, argv.size()));
        break;
      }
      positionals.add(arg);
    }
    return new Args(values, Set.copyOf(flags), List.copyOf(positionals), List.copyOf(command));
  }

  /** The last value of an option, if given. */
  Optional<String> value(String name) {
    List<String> v = values.get(name);
    return v == null ? Optional.empty() : Optional.of(v.getLast());
  }

  /** The value of an option, or {@code fallback}. */
  String value(String name, String fallback) {
    return value(name).orElse(fallback);
  }

  /** Every value of a repeatable option, in order. */
  List<String> values(String name) {
    return List.copyOf(values.getOrDefault(name, List.of()));
  }

  /** An option's value as a whole number in {@code [min, max]}, or {@code fallback}. */
  long number(String name, long fallback, long min, long max) {
    Optional<String> v = value(name);
    if (v.isEmpty()) {
      return fallback;
    }
    long n;
    try {
      n = Long.parseLong(v.get().strip());
    } catch (NumberFormatException e) {
      throw new UsageException("option --" + name + " needs a whole number, not " + v.get());
    }
    if (n < min || n > max) {
      throw new UsageException(
          "option --" + name + " must be between " + min + " and " + max + ", not " + n);
    }
    return n;
  }

  /** {@code KEY=VALUE} options as a map, in order. */
  Map<String, String> pairs(String name) {
    Map<String, String> out = new java.util.LinkedHashMap<>();
    for (String v : values(name)) {
      int eq = v.indexOf('=');
      if (eq <= 0) {
        throw new UsageException("option --" + name + " needs KEY=VALUE, not " + v);
      }
      out.put(v.substring(0, eq), v.substring(eq + 1));
    }
    return out;
  }

  boolean flag(String name) {
    return flags.contains(name);
  }

  List<String> positionals() {
    return positionals;
  }

  /** The one positional at {@code index}, named {@code what} in the error when it is missing. */
  String positional(int index, String what) {
    if (index >= positionals.size()) {
      throw new UsageException("missing " + what);
    }
    return positionals.get(index);
  }

  /** Fails when more positionals were given than {@code max}. */
  Args atMostPositionals(int max) {
    if (positionals.size() > max) {
      throw new UsageException("unexpected argument " + positionals.get(max));
    }
    return this;
  }

  List<String> command() {
    return command;
  }
}
