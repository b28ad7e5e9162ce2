package dev.runkora.plugin.runtime.bwrap;

import static org.assertj.core.api.Assertions.assertThat;

import dev.runkora.conformance.runtime.RuntimeExecSuite;
import dev.runkora.spi.core.PluginConfig;
import dev.runkora.spi.runtime.MountSpec;
import dev.runkora.spi.runtime.RuntimeProvider;
import java.nio.file.Files;
import org.junit.jupiter.api.Test;

/**
 * The exec conformance suite with native calls off, as where the JVM refuses native access: the
 * named pipes and host mounts come from the mkfifo, mount and umount programs, commands still run
 * only through the agent, and so still cannot undo a read-only bind.
 */
class BwrapExecWithoutNativeCallsIT extends RuntimeExecSuite {

  @Override
  protected RuntimeProvider provider() {
    return new BwrapRuntimeProvider();
  }

  @Override
  protected PluginConfig config() {
    return PluginConfig.of("native-calls", "false");
  }

  @Test
  void commandCannotRemountAReadOnlyBindWritableWithoutNativeCalls() throws Exception {
    var host = hostDirectory("ro");
    Files.writeString(host.resolve("file"), "host\n");
    var name = newName();
    create(spec(name).mount(MountSpec.readOnly(host, "/data")).build());

    var result =
        sh(
            name,
            "/dev/.kora/busybox mount -o remount,rw,bind /data; echo changed > /data/file;"
                + " /dev/.kora/busybox mount -o remount,rw,bind /usr");

    assertThat(result.exitCode()).isNotZero();
    assertThat(Files.readString(host.resolve("file"))).isEqualTo("host\n");
  }

  @Test
  void liveMountReachesARunningSandboxWithoutNativeCalls() throws Exception {
    var host = hostDirectory("live");
    Files.writeString(host.resolve("file"), "live\n");
    var name = createDefault();

    runtime.mount(name, MountSpec.readOnly(host, "/tmp/live"));

    assertThat(run(name, "cat", "/tmp/live/file").stdout()).isEqualTo("live\n");
    assertThat(sh(name, "echo changed > /tmp/live/file").exitCode()).isNotZero();
    assertThat(Files.readString(host.resolve("file"))).isEqualTo("live\n");
  }
}
