package dev.runkora.sandboxd.plugins;

import dev.runkora.common.files.PrivateFiles;
import dev.runkora.pluginhost.ExtensionPoint;
import dev.runkora.pluginhost.PluginHost;
import dev.runkora.pluginhost.PluginInfo;
import dev.runkora.sandboxd.SandboxdConfig;
import dev.runkora.spi.autoscaler.AutoscalerContext;
import dev.runkora.spi.core.KoraException;
import dev.runkora.spi.core.PluginConfig;
import dev.runkora.spi.core.PluginProvider;
import dev.runkora.spi.registry.ImageRegistry;
import dev.runkora.spi.registry.RegistryContext;
import dev.runkora.spi.registry.RegistryProvider;
import dev.runkora.spi.registry.RegistrySettings;
import dev.runkora.spi.runtime.RuntimeContext;
import dev.runkora.spi.storage.StorageContext;
import java.io.IOException;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Finds the providers through the plugin host (the module path) and creates the configured plugins.
 * Selection is by name: a missing or duplicated name fails start-up with a message that names what
 * was found.
 */
public final class PluginLoader {

  private static final System.Logger LOG = System.getLogger(PluginLoader.class.getName());

  /**
   * Registry plugins that serve only specific templates go before {@code oci}, which serves all.
   */
  private static final Map<String, Integer> REGISTRY_ORDER =
      Map.of("host", 0, "oci-layout", 1, "oci", 9);

  private static volatile PluginHost HOST;

  private PluginLoader() {}

  /** Creates the plugins the configuration names. */
  public static PluginSet load(SandboxdConfig config) {
    Path data = config.dataDir();
    var runtimeProvider = host().select(ExtensionPoint.RUNTIME, config.runtime());
    var runtime =
        runtimeProvider.create(
            new PluginConfig(config.runtimeSettings()),
            new RuntimeContext(dir(data, "runtime", config.runtime()), logger("runtime")));
    var settings =
        new RegistrySettings(
            config.registry().mirrors(),
            config.registry().registryPorts(),
            config.registry().plainHttpHosts());
    var registries = new ArrayList<ImageRegistry>();
    var registryProviders = all(ExtensionPoint.REGISTRY);
    var wanted = config.registry().plugins();
    if (!wanted.isEmpty()) {
      registryProviders = new ArrayList<>();
      for (String name : wanted) {
        registryProviders.add(host().select(ExtensionPoint.REGISTRY, name));
      }
    } else {
      registryProviders.sort(
          Comparator.comparing((RegistryProvider p) -> REGISTRY_ORDER.getOrDefault(p.name(), 5))
              .thenComparing(PluginProvider::name));
    }
    var used = new ArrayList<String>();
    for (RegistryProvider provider : registryProviders) {
      var pluginConfig =
          new PluginConfig(
              config.registry().pluginSettings().getOrDefault(provider.name(), Map.of()));
      try {
        registries.add(
            create(
                provider.name(),
                () ->
                    provider.create(
                        pluginConfig,
                        new RegistryContext(
                            dir(data, "registry", provider.name()),
                            settings,
                            logger("registry")))));
        used.add(provider.name());
      } catch (KoraException e) {
        if (!wanted.isEmpty() || e.kind() != dev.runkora.spi.core.ErrorKind.INVALID_ARGUMENT) {
          throw e;
        }
        LOG.log(
            System.Logger.Level.WARNING,
            "registry plugin ''{0}'' left out: {1} (configure it under registry.settings)",
            provider.name(),
            e.getMessage());
      }
    }
    var autoscalerProvider = host().select(ExtensionPoint.AUTOSCALER, config.autoscaler());
    var autoscaler =
        autoscalerProvider.create(
            PluginConfig.empty(),
            new AutoscalerContext(InstantSource.system(), logger("autoscaler")));
    var storage = Optional.<dev.runkora.spi.storage.StorageClass>empty();
    if (!config.storage().isEmpty()) {
      var found =
          all(ExtensionPoint.STORAGE).stream()
              .filter(p -> p.name().equals(config.storage()))
              .toList();
      if (found.isEmpty()) {
        LOG.log(
            System.Logger.Level.WARNING,
            "storage plugin ''{0}'' not found; workspace mounts are off",
            config.storage());
      } else {
        storage =
            Optional.of(
                found
                    .getFirst()
                    .create(
                        PluginConfig.empty(),
                        new StorageContext(
                            dir(data, "storage", config.storage()), logger("storage"))));
      }
    }
    LOG.log(
        System.Logger.Level.INFO,
        "plugins: runtime {0} {1}, registries {2}, autoscaler {3}, storage {4}",
        config.runtime(),
        runtime.capabilities(),
        used,
        config.autoscaler(),
        storage.isPresent() ? config.storage() : "none");
    return new PluginSet(runtime, registries, autoscaler, storage);
  }

  private static <P extends PluginProvider<?>> List<P> all(ExtensionPoint<P> point) {
    var result = new ArrayList<P>();
    for (PluginInfo info : host().plugins(point)) {
      result.add(host().select(point, info.name()));
    }
    return result;
  }

  private static PluginHost host() {
    var loaded = HOST;
    if (loaded == null) {
      synchronized (PluginLoader.class) {
        if (HOST == null) {
          HOST = PluginHost.bootLayerOnly();
        }
        loaded = HOST;
      }
    }
    return loaded;
  }

  /**
   * Creates a plugin, turning a broken plugin jar (a missing class) into a clear start-up error.
   */
  private static <T> T create(String name, java.util.function.Supplier<T> creation) {
    try {
      return creation.get();
    } catch (LinkageError e) {
      throw new KoraException(
          dev.runkora.spi.core.ErrorKind.UNAVAILABLE,
          "plugin '%s' cannot be created: %s".formatted(name, e),
          e);
    }
  }

  private static Path dir(Path data, String point, String name) {
    try {
      return PrivateFiles.directory(data.resolve(point).resolve(name));
    } catch (IOException e) {
      throw KoraException.unavailable("cannot create %s: %s", data.resolve(point), e.getMessage());
    }
  }

  private static System.Logger logger(String point) {
    return System.getLogger("dev.runkora.plugin." + point);
  }
}
