package dev.runkora.sandboxd;

import dev.runkora.sandboxd.plugins.PluginSet;
import dev.runkora.spi.autoscaler.Autoscaler;
import dev.runkora.spi.autoscaler.ClusterDemand;
import dev.runkora.spi.autoscaler.PlaceholderPlan;
import dev.runkora.spi.autoscaler.PoolDemand;
import dev.runkora.spi.core.KoraException;
import dev.runkora.spi.registry.ImageManifest;
import dev.runkora.spi.registry.ImageReference;
import dev.runkora.spi.registry.ImageRegistry;
import dev.runkora.spi.registry.RootFilesystem;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/** Small fakes of the registry and autoscaler SPIs for unit tests. */
final class TestingPlugins {

  private TestingPlugins() {}

  static PluginSet of(TestingRuntime runtime, Path root) {
    return new PluginSet(
        runtime, List.of(new TemplateRegistry(root)), new FloorAutoscaler(), Optional.empty());
  }

  /** Serves {@code host} and any {@code test/...} name as an empty directory. */
  static class TemplateRegistry implements ImageRegistry {
    private final Path root;

    TemplateRegistry(Path root) {
      this.root = root;
    }

    @Override
    public boolean serves(String reference) {
      return reference.equals("host") || reference.startsWith("test/");
    }

    @Override
    public ImageReference resolve(String reference) {
      if (reference.equals("test/missing")) {
        throw KoraException.notFound("no image %s", reference);
      }
      return new ImageReference(reference, "local", reference, "latest", "");
    }

    @Override
    public ImageManifest manifest(ImageReference reference) {
      throw KoraException.unsupported("testing", dev.runkora.spi.registry.RegistryCapability.PULL);
    }

    @Override
    public RootFilesystem materialize(ImageReference reference, Consumer<String> progress) {
      if (reference.original().equals("test/missing")) {
        throw KoraException.notFound("no image %s", reference.original());
      }
      return RootFilesystem.of(
          reference, "host", root, Map.of(), Map.of("KORA_TEMPLATE", reference.original()), "/");
    }

    @Override
    public boolean isWarm(ImageReference reference) {
      return true;
    }

    @Override
    public void evict(ImageReference reference) {}

    @Override
    public void close() {}
  }

  /** Keeps every pool at its floor, or at its ceiling once a claim missed. */
  static final class FloorAutoscaler implements Autoscaler {
    @Override
    public int warmTarget(PoolDemand demand) {
      return demand.pending() > 0 ? Math.max(demand.floor(), demand.ceiling()) : demand.floor();
    }

    @Override
    public void forget(String pool) {}

    @Override
    public PlaceholderPlan placeholders(ClusterDemand demand) {
      throw KoraException.unsupported(
          "testing", dev.runkora.spi.autoscaler.AutoscalerCapability.PLACEHOLDERS);
    }
  }
}
