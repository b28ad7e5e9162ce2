/**
 * kora-sandboxd, the node sandbox daemon: warm pools of sandboxes behind the sandboxd v1 HTTP API
 * (claim, release, renew, exec, listings, pools, drain, health and metrics), crash-safe claim state
 * in {@code claims.json}, and kora's additive extensions (streaming exec, files, claim-time mounts
 * and environment).
 *
 * <p>The exported package {@code dev.runkora.sandboxd} is what the CLI embeds: a configuration
 * record and {@link dev.runkora.sandboxd.Sandboxd#start}. Everything else is internal. The four
 * extension points are found with {@link java.util.ServiceLoader}.
 */
module dev.runkora.sandboxd {
  requires dev.runkora.common;
  requires dev.runkora.pluginhost;
  requires transitive dev.runkora.spi.runtime;
  requires transitive dev.runkora.spi.registry;
  requires transitive dev.runkora.spi.storage;
  requires transitive dev.runkora.spi.autoscaler;
  requires io.helidon.webserver;
  requires java.logging;

  exports dev.runkora.sandboxd;

  uses dev.runkora.spi.runtime.RuntimeProvider;
  uses dev.runkora.spi.registry.RegistryProvider;
  uses dev.runkora.spi.storage.StorageProvider;
  uses dev.runkora.spi.autoscaler.AutoscalerProvider;
}
