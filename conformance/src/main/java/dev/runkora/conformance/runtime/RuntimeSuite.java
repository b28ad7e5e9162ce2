package dev.runkora.conformance.runtime;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.runkora.spi.core.ErrorKind;
import dev.runkora.spi.core.KoraException;
import dev.runkora.spi.core.PluginConfig;
import dev.runkora.spi.runtime.ExecRequest;
import dev.runkora.spi.runtime.MountSpec;
import dev.runkora.spi.runtime.NetworkMode;
import dev.runkora.spi.runtime.ResourceLimits;
import dev.runkora.spi.runtime.RuntimeCapability;
import dev.runkora.spi.runtime.RuntimeContext;
import dev.runkora.spi.runtime.RuntimeProvider;
import dev.runkora.spi.runtime.SandboxInfo;
import dev.runkora.spi.runtime.SandboxRuntime;
import dev.runkora.spi.runtime.SandboxSpec;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;

/**
 * What the runtime suites share: the provider under test, a live runtime on a fresh state
 * directory, a root filesystem, and helpers to make sandboxes and run commands. Every sandbox a
 * test makes is deleted after it.
 *
 * <p>A plugin's test class extends each suite and returns its provider; it may override {@link
 * #config()} and {@link #rootFilesystem(Path)}. Which tests run follows the capabilities the
 * runtime reports: a test of a capability is skipped (an assumption) when it is not declared, and
 * its counterpart checks the {@link ErrorKind#UNSUPPORTED} rejection instead.
 */
public abstract class RuntimeSuite {

  /** The generous limit for one command: a command of the suites takes well under a second. */
  protected static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(60);

  /** The runtime under test, made before each test. */
  protected SandboxRuntime runtime;

  /** The state directory the runtime was made with. */
  protected Path stateDirectory;

  /** The root filesystem sandboxes are made from. */
  protected TestRootFilesystem root;

  private Path workDirectory;
  private final Set<String> created = new LinkedHashSet<>();
  private final List<SandboxRuntime> extraRuntimes = new ArrayList<>();

  /** Returns the provider under test. */
  protected abstract RuntimeProvider provider();

  /** Returns the configuration the runtime is made with; empty by default. */
  protected PluginConfig config() {
    return PluginConfig.empty();
  }

  /**
   * Returns the root filesystem the suites use; the {@code host} template by default.
   *
   * @param directory a fresh directory the fixture may use
   */
  protected TestRootFilesystem rootFilesystem(Path directory) throws IOException {
    return TestRootFilesystem.host(directory.resolve("empty-root"));
  }

  /** Makes the runtime on a fresh state directory. */
  @BeforeEach
  public void createRuntime() throws IOException {
    workDirectory = Files.createTempDirectory("kora-runtime-suite-");
    stateDirectory = Files.createDirectories(workDirectory.resolve("state"));
    root = rootFilesystem(workDirectory.resolve("root"));
    runtime = openRuntime();
  }

  /** Deletes every sandbox the test made, closes the runtimes and removes the test's files. */
  @AfterEach
  public void deleteSandboxes() throws IOException {
    var failures = new ArrayList<String>();
    for (var name : created) {
      try {
        runtime.delete(name);
      } catch (KoraException e) {
        failures.add(name + ": " + e.getMessage());
      }
    }
    created.clear();
    extraRuntimes.forEach(SandboxRuntime::close);
    extraRuntimes.clear();
    if (runtime != null) {
      runtime.close();
    }
    // Never delete through a mount a failed clean-up left behind.
    if (failures.isEmpty() && mountsBelow(workDirectory).isEmpty()) {
      deleteTree(workDirectory);
    }
    if (!failures.isEmpty()) {
      throw new AssertionError("sandboxes could not be deleted: " + failures);
    }
  }

  /** Makes another runtime object on the same state directory, as a restarted host would. */
  protected SandboxRuntime openRuntime() {
    var made =
        provider()
            .create(
                config(),
                new RuntimeContext(stateDirectory, System.getLogger("kora.conformance.runtime")));
    if (runtime != null) {
      extraRuntimes.add(made);
    }
    return made;
  }

  /** Returns whether the runtime under test reports a capability. */
  protected boolean declares(RuntimeCapability capability) {
    return runtime.capabilities().contains(capability);
  }

  /** Skips the test unless the runtime reports the capability. */
  protected void assumeDeclared(RuntimeCapability capability) {
    Assumptions.assumeTrue(declares(capability), "the runtime does not declare " + capability);
  }

  /** Skips the test unless the runtime lacks the capability (the rejection side). */
  protected void assumeNotDeclared(RuntimeCapability capability) {
    Assumptions.assumeFalse(declares(capability), "the runtime declares " + capability);
  }

  /** Returns a fresh sandbox name no other test or run uses. */
  protected static String newName() {
    var bytes = new byte[5];
    ThreadLocalRandom.current().nextBytes(bytes);
    return "conf-" + HexFormat.of().formatHex(bytes);
  }

  /** Returns a spec builder for the suite's root filesystem: read-only root, no limits, egress. */
  protected SpecBuilder spec(String name) {
    return new SpecBuilder(name, root);
  }

  /** Creates a sandbox and remembers it for deletion after the test. */
  protected SandboxInfo create(SandboxSpec spec) {
    created.add(spec.name());
    return runtime.create(spec);
  }

  /** Creates a sandbox with the defaults of {@link #spec(String)} and returns its name. */
  protected String createDefault() {
    var name = newName();
    create(spec(name).build());
    return name;
  }

  /** Runs a command to its end with the suite's generous timeout and collects its output. */
  protected ExecResult run(String sandbox, String... argv) {
    return run(sandbox, ExecRequest.of(argv).withTimeout(COMMAND_TIMEOUT), "");
  }

  /** Runs a shell script ({@code /bin/sh -c}) to its end and collects its output. */
  protected ExecResult sh(String sandbox, String script) {
    return run(sandbox, "/bin/sh", "-c", script);
  }

  /** Runs a request to its end, writing {@code input} to its standard input first. */
  protected ExecResult run(SandboxRuntime on, String sandbox, ExecRequest request, String input) {
    try (var process = on.exec(sandbox, request)) {
      var stdout = CompletableFuture.supplyAsync(() -> readAll(process.stdout()));
      var stderr = CompletableFuture.supplyAsync(() -> readAll(process.stderr()));
      try (var stdin = process.stdin()) {
        stdin.write(input.getBytes(StandardCharsets.UTF_8));
      } catch (IOException e) {
        // The command need not read its input.
      }
      var exit = process.waitFor(Duration.ZERO);
      return new ExecResult(exit.orElseThrow(), stdout.join(), stderr.join(), process.timedOut());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Runs a request on the runtime under test. */
  protected ExecResult run(String sandbox, ExecRequest request, String input) {
    return run(runtime, sandbox, request, input);
  }

  /** Asserts that a call fails with a {@link KoraException} of a kind. */
  protected static void assertFailsWith(ErrorKind kind, ThrowingCallable call) {
    assertThatThrownBy(call)
        .isInstanceOfSatisfying(
            KoraException.class,
            e ->
                org.assertj.core.api.Assertions.assertThat(e.kind())
                    .as("error kind of: %s", e.getMessage())
                    .isEqualTo(kind));
  }

  /** Returns the listing entry of a sandbox, if the runtime lists it. */
  protected Optional<SandboxInfo> listed(SandboxRuntime on, String name) {
    return on.list().stream().filter(info -> info.name().equals(name)).findFirst();
  }

  /** Returns a new directory on the host for a test's own files. */
  protected Path hostDirectory(String name) throws IOException {
    return Files.createDirectories(workDirectory.resolve("host").resolve(name));
  }

  private static String readAll(InputStream in) {
    try (in) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static List<String> mountsBelow(Path dir) throws IOException {
    var prefix = dir.toAbsolutePath().toString();
    return Files.readAllLines(Path.of("/proc/self/mountinfo")).stream()
        .map(line -> line.split(" ")[4])
        .filter(point -> point.equals(prefix) || point.startsWith(prefix + "/"))
        .toList();
  }

  private static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (var paths = Files.walk(dir)) {
      for (var path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
    }
  }

  /** Builds a {@link SandboxSpec} from the suite's defaults. */
  public static final class SpecBuilder {
    private final String name;
    private final TestRootFilesystem root;
    private Path rootDirectory;
    private boolean writableRoot;
    private final List<MountSpec> mounts = new ArrayList<>();
    private ResourceLimits limits = ResourceLimits.none();
    private NetworkMode network = NetworkMode.EGRESS;
    private final Map<String, String> env = new LinkedHashMap<>();
    private String workingDirectory = "";

    SpecBuilder(String name, TestRootFilesystem root) {
      this.name = name;
      this.root = root;
      this.rootDirectory = root.root();
    }

    /** Uses another directory as the root filesystem. */
    public SpecBuilder rootDirectory(Path value) {
      rootDirectory = value;
      return this;
    }

    /** Lets the sandbox write to {@code /}. */
    public SpecBuilder writableRoot(boolean value) {
      writableRoot = value;
      return this;
    }

    /** Adds a bind after the root filesystem's own. */
    public SpecBuilder mount(MountSpec value) {
      mounts.add(value);
      return this;
    }

    /** Sets the limits. */
    public SpecBuilder limits(ResourceLimits value) {
      limits = value;
      return this;
    }

    /** Sets the network mode. */
    public SpecBuilder network(NetworkMode value) {
      network = value;
      return this;
    }

    /** Adds a base environment variable. */
    public SpecBuilder env(String key, String value) {
      env.put(key, value);
      return this;
    }

    /** Sets the default working directory of commands. */
    public SpecBuilder workingDirectory(String value) {
      workingDirectory = value;
      return this;
    }

    /** Returns the spec. */
    public SandboxSpec build() {
      var all = new ArrayList<>(root.mounts());
      all.addAll(mounts);
      var environment = new LinkedHashMap<String, String>();
      environment.put("PATH", "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin");
      environment.putAll(env);
      return new SandboxSpec(
          name, rootDirectory, writableRoot, all, limits, network, environment, workingDirectory);
    }
  }
}
