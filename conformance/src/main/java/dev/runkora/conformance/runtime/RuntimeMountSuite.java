package dev.runkora.conformance.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.runkora.spi.core.ErrorKind;
import dev.runkora.spi.runtime.MountSpec;
import dev.runkora.spi.runtime.RuntimeCapability;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * Host paths in a sandbox: binds given at create time (at another path than on the host, which
 * needs {@link RuntimeCapability#FILESYSTEM_ISOLATION}) and binds into a running sandbox ({@link
 * RuntimeCapability#LIVE_MOUNT}).
 */
public abstract class RuntimeMountSuite extends RuntimeSuite {

  /** A read-write bind shows the host's files, and what the sandbox writes reaches the host. */
  @Test
  public void readWriteMountSharesFilesBothWays() throws Exception {
    assumeDeclared(RuntimeCapability.FILESYSTEM_ISOLATION);
    var host = hostDirectory("rw");
    Files.writeString(host.resolve("from-host.txt"), "hello");
    var name = newName();
    create(spec(name).mount(MountSpec.readWrite(host, "/workspace")).build());

    assertThat(run(name, "cat", "/workspace/from-host.txt").stdout()).isEqualTo("hello");
    assertThat(sh(name, "echo back > /workspace/from-sandbox.txt").exitCode()).isZero();
    assertThat(host.resolve("from-sandbox.txt")).hasContent("back");
  }

  /** A read-only bind shows the host's files and refuses writes. */
  @Test
  public void readOnlyMountRefusesWrites() throws Exception {
    assumeDeclared(RuntimeCapability.FILESYSTEM_ISOLATION);
    var host = hostDirectory("ro");
    Files.writeString(host.resolve("data.txt"), "data");
    var name = newName();
    create(spec(name).mount(MountSpec.readOnly(host, "/data")).build());

    assertThat(run(name, "cat", "/data/data.txt").stdout()).isEqualTo("data");
    assertThat(sh(name, "echo x > /data/new.txt").exitCode()).isNotZero();
    assertThat(host.resolve("new.txt")).doesNotExist();
  }

  /**
   * Without FILESYSTEM_ISOLATION a sandbox sees the host's own paths, so a bind to another path
   * cannot be honoured: it is UNSUPPORTED, and nothing is left of the sandbox.
   */
  @Test
  public void mountAtAnotherPathIsRejectedWithoutFilesystemIsolation() throws Exception {
    assumeNotDeclared(RuntimeCapability.FILESYSTEM_ISOLATION);
    var host = hostDirectory("elsewhere");
    var name = newName();

    assertFailsWith(
        ErrorKind.UNSUPPORTED,
        () ->
            runtime.create(spec(name).mount(MountSpec.readWrite(host, "/kora-elsewhere")).build()));
    assertThat(listed(runtime, name)).isEmpty();
  }

  /** A directory bound into a running sandbox appears there at once, and writes reach the host. */
  @Test
  public void liveMountReachesARunningSandbox() throws Exception {
    assumeDeclared(RuntimeCapability.LIVE_MOUNT);
    var name = newName();
    create(spec(name).writableRoot(true).build());
    var host = hostDirectory("live");
    Files.writeString(host.resolve("claim.txt"), "claimed");

    runtime.mount(name, MountSpec.readWrite(host, "/workspace"));

    assertThat(run(name, "cat", "/workspace/claim.txt").stdout()).isEqualTo("claimed");
    assertThat(sh(name, "echo result > /workspace/out.txt").exitCode()).isZero();
    assertThat(host.resolve("out.txt")).hasContent("result");
  }

  /** A read-only live mount refuses writes. */
  @Test
  public void readOnlyLiveMountRefusesWrites() throws Exception {
    assumeDeclared(RuntimeCapability.LIVE_MOUNT);
    var name = newName();
    create(spec(name).writableRoot(true).build());
    var host = hostDirectory("live-ro");
    Files.writeString(host.resolve("data.txt"), "data");

    runtime.mount(name, MountSpec.readOnly(host, "/data"));

    assertThat(run(name, "cat", "/data/data.txt").stdout()).isEqualTo("data");
    assertThat(sh(name, "echo x > /data/new.txt").exitCode()).isNotZero();
    assertThat(host.resolve("new.txt")).doesNotExist();
  }

  /** A single file can be bound into a running sandbox. */
  @Test
  public void liveMountOfAFile() throws Exception {
    assumeDeclared(RuntimeCapability.LIVE_MOUNT);
    var name = newName();
    create(spec(name).writableRoot(true).build());
    var file = hostDirectory("file").resolve("token.txt");
    Files.writeString(file, "secret-free");

    runtime.mount(name, MountSpec.readOnly(file, "/run/kora/token.txt"));

    assertThat(run(name, "cat", "/run/kora/token.txt").stdout()).isEqualTo("secret-free");
  }

  /** A live mount of a host path that does not exist is INVALID_ARGUMENT. */
  @Test
  public void liveMountOfAMissingHostPathIsInvalidArgument() {
    assumeDeclared(RuntimeCapability.LIVE_MOUNT);
    var name = createDefault();

    assertFailsWith(
        ErrorKind.INVALID_ARGUMENT,
        () -> runtime.mount(name, MountSpec.readOnly(Path.of("/nonexistent/kora"), "/x")));
  }

  /** A live mount into a name the runtime does not know is NOT_FOUND. */
  @Test
  public void liveMountIntoAnUnknownSandboxIsNotFound() throws Exception {
    assumeDeclared(RuntimeCapability.LIVE_MOUNT);
    var host = hostDirectory("unknown");

    assertFailsWith(
        ErrorKind.NOT_FOUND, () -> runtime.mount(newName(), MountSpec.readOnly(host, "/x")));
  }

  /** Without LIVE_MOUNT, mount() is UNSUPPORTED. */
  @Test
  public void liveMountIsRejectedWhenNotDeclared() throws Exception {
    assumeNotDeclared(RuntimeCapability.LIVE_MOUNT);
    var name = createDefault();
    var host = hostDirectory("unsupported");

    assertFailsWith(
        ErrorKind.UNSUPPORTED, () -> runtime.mount(name, MountSpec.readOnly(host, "/x")));
  }
}
