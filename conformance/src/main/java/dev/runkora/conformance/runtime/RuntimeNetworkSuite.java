package dev.runkora.conformance.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.runkora.spi.core.ErrorKind;
import dev.runkora.spi.runtime.NetworkMode;
import dev.runkora.spi.runtime.RuntimeCapability;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The network modes: {@code none} is a namespace with only {@code lo}; {@code egress} is more. */
public abstract class RuntimeNetworkSuite extends RuntimeSuite {

  /** The interfaces a sandbox sees, from /proc/net/dev. */
  protected List<String> interfaces(String name) {
    var result = run(name, "cat", "/proc/net/dev");
    assertThat(result.exitCode()).as(result.describe()).isZero();
    return Arrays.stream(result.stdout().split("\n"))
        .filter(line -> line.contains(":"))
        .map(line -> line.substring(0, line.indexOf(':')).strip())
        .toList();
  }

  /** A sandbox with network {@code none} has the loopback interface and nothing else. */
  @Test
  public void noneHasOnlyLoopback() {
    assumeDeclared(RuntimeCapability.NETWORK_NONE);
    var name = newName();
    create(spec(name).network(NetworkMode.NONE).build());

    assertThat(interfaces(name)).containsExactly("lo");
  }

  /** A sandbox with network {@code egress} has an interface besides loopback. */
  @Test
  public void egressHasAnInterfaceBesidesLoopback() {
    assumeDeclared(RuntimeCapability.NETWORK_EGRESS);
    var name = newName();
    create(spec(name).network(NetworkMode.EGRESS).build());

    assertThat(interfaces(name)).anyMatch(iface -> !iface.equals("lo"));
  }

  /** Without NETWORK_NONE, asking for {@code none} is UNSUPPORTED, and nothing is left of it. */
  @Test
  public void noneIsRejectedWhenNotDeclared() {
    assumeNotDeclared(RuntimeCapability.NETWORK_NONE);
    var name = newName();

    assertFailsWith(
        ErrorKind.UNSUPPORTED, () -> runtime.create(spec(name).network(NetworkMode.NONE).build()));
    assertThat(listed(runtime, name)).isEmpty();
  }

  /** Without NETWORK_EGRESS, asking for {@code egress} is UNSUPPORTED, and nothing is left. */
  @Test
  public void egressIsRejectedWhenNotDeclared() {
    assumeNotDeclared(RuntimeCapability.NETWORK_EGRESS);
    var name = newName();

    assertFailsWith(
        ErrorKind.UNSUPPORTED,
        () -> runtime.create(spec(name).network(NetworkMode.EGRESS).build()));
    assertThat(listed(runtime, name)).isEmpty();
  }
}
