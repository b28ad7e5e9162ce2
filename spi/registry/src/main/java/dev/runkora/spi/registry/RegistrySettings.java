package dev.runkora.spi.registry;

import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * How registries are reached from this node, the same for every registry plugin. The host builds it
 * from {@code agents.sandboxImages.registryMirrors} and {@code registryPorts}.
 *
 * @param mirrors registry host (with port, if any) to the mirror host that serves it instead, such
 *     as {@code docker.io -> mirror.example.com}
 * @param registryPorts ports other than 443 that registries are read on; a reference whose host
 *     names another port is refused
 * @param plainHttpHosts registry hosts (with port) spoken to over plain HTTP instead of TLS, such
 *     as a registry on loopback; hosts on loopback are always allowed plain HTTP
 */
public record RegistrySettings(
    Map<String, String> mirrors, Set<Integer> registryPorts, Set<String> plainHttpHosts) {

  /** Copies the collections. */
  public RegistrySettings {
    mirrors = Map.copyOf(Objects.requireNonNull(mirrors, "mirrors"));
    registryPorts = Set.copyOf(Objects.requireNonNull(registryPorts, "registryPorts"));
    plainHttpHosts = Set.copyOf(Objects.requireNonNull(plainHttpHosts, "plainHttpHosts"));
  }

  /** Returns settings with no mirrors, no extra ports and no plain-HTTP hosts. */
  public static RegistrySettings defaults() {
    return new RegistrySettings(Map.of(), Set.of(), Set.of());
  }
}
