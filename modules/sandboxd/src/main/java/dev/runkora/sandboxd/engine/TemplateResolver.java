package dev.runkora.sandboxd.engine;

import dev.runkora.spi.core.KoraException;
import dev.runkora.spi.registry.ImageRegistry;
import dev.runkora.spi.registry.RootFilesystem;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;

/**
 * Turns a template name into a root filesystem through the registry plugins: the first plugin whose
 * {@code serves(template)} is true resolves and materialises it. Each template is materialised
 * once; concurrent callers share the work and a failure is not remembered.
 */
public final class TemplateResolver {

  private static final System.Logger LOG = System.getLogger(TemplateResolver.class.getName());

  private final List<ImageRegistry> registries;
  private final Map<String, CompletableFuture<RootFilesystem>> roots = new ConcurrentHashMap<>();

  /** Creates a resolver over registry plugins, in the order they are asked. */
  public TemplateResolver(List<ImageRegistry> registries) {
    this.registries = List.copyOf(registries);
  }

  /** Returns whether a template has been materialised already. */
  public boolean ready(String template) {
    var future = roots.get(template);
    return future != null && future.isDone() && !future.isCompletedExceptionally();
  }

  /**
   * Returns the template's root filesystem, materialising it on first use.
   *
   * @throws ApiException 404 for a template no plugin serves or knows, 400 for a malformed one, 500
   *     when the content could not be fetched
   */
  public RootFilesystem root(String template) {
    var mine = new CompletableFuture<RootFilesystem>();
    var existing = roots.putIfAbsent(template, mine);
    if (existing == null) {
      try {
        mine.complete(materialize(template));
      } catch (RuntimeException e) {
        roots.remove(template, mine);
        mine.completeExceptionally(e);
      }
      return join(mine);
    }
    return join(existing);
  }

  private static RootFilesystem join(CompletableFuture<RootFilesystem> future) {
    try {
      return future.get();
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw new ApiException(500, "provisioning failed", e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ApiException(500, "provisioning interrupted", e);
    }
  }

  private RootFilesystem materialize(String template) {
    for (ImageRegistry registry : registries) {
      if (!registry.serves(template)) {
        continue;
      }
      try {
        var reference = registry.resolve(template);
        return registry.materialize(
            reference, line -> LOG.log(System.Logger.Level.DEBUG, "{0}: {1}", template, line));
      } catch (KoraException e) {
        throw switch (e.kind()) {
          case NOT_FOUND -> new ApiException(404, "unknown template \"" + template + "\"", e);
          case INVALID_ARGUMENT ->
              new ApiException(400, "template \"" + template + "\": " + e.getMessage(), e);
          default ->
              new ApiException(
                  500, "provisioning failed: template \"" + template + "\": " + e.getMessage(), e);
        };
      }
    }
    throw new ApiException(404, "unknown template \"" + template + "\"");
  }
}
