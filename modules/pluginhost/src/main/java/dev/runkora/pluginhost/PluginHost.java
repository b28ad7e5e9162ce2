package dev.runkora.pluginhost;

import dev.runkora.spi.core.KoraException;
import dev.runkora.spi.core.PluginProvider;
import java.io.IOException;
import java.lang.module.Configuration;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.lang.reflect.InvocationTargetException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Finds the providers of kora's extension points and selects one by its configured name.
 *
 * <p>Providers come from the boot layer (the module path, or the class path through {@code
 * META-INF/services}) and from an optional plugin directory. Each regular {@code .jar} file in the
 * directory, and each sub-directory (a plugin jar with the jars it needs), is loaded as its own
 * {@link ModuleLayer} whose parent is the boot layer; other files are ignored. Plain jars without a
 * {@code module-info} load as automatic modules and are found through their {@code
 * META-INF/services} files.
 *
 * <p>Loading never throws for a broken plugin: it records a {@link PluginProblem} (a jar that is
 * not a valid module layer, a jar that provides none of the extension points, a provider whose
 * constructor or descriptor methods throw, a provider with a malformed name). {@link #select} then
 * refuses to select a provider of an extension point that has a problem, because the broken plugin
 * may be the one the configuration names; {@link #plugins()} and {@link #problems()} still show
 * everything for {@code kora info}.
 *
 * <p>A host is immutable once loaded and safe to use from any thread. Every provider is
 * instantiated once, at load; {@link #select} returns that instance.
 */
public final class PluginHost {

  /** The location of providers found on the module path. */
  public static final String BOOT_LAYER = "boot layer";

  /** The location of providers found on the class path. */
  public static final String CLASS_PATH = "class path";

  private static final Pattern NAME = Pattern.compile("[a-z][a-z0-9-]*");

  private record Found(ExtensionPoint<?> point, PluginProvider<?> provider, PluginInfo info) {}

  private final List<Found> found;
  private final List<PluginProblem> problems;

  private PluginHost(List<Found> found, List<PluginProblem> problems) {
    this.found = List.copyOf(found);
    this.problems = List.copyOf(problems);
  }

  /** Loads the providers of the boot layer only (no plugin directory). */
  public static PluginHost bootLayerOnly() {
    return load(Optional.empty());
  }

  /**
   * Loads the providers of the boot layer and, when given, of a plugin directory.
   *
   * @param pluginDirectory the directory of third-party plugins, if one is configured
   * @return the loaded host; broken plugins are recorded as {@link #problems()}
   * @throws KoraException {@code INVALID_ARGUMENT} when the directory does not exist or is not a
   *     directory; {@code UNAVAILABLE} when it cannot be read
   */
  public static PluginHost load(Optional<Path> pluginDirectory) {
    Objects.requireNonNull(pluginDirectory, "pluginDirectory");
    var found = new ArrayList<Found>();
    var problems = new ArrayList<PluginProblem>();
    loadBootLayer(found, problems);
    if (pluginDirectory.isPresent()) {
      for (Path entry : entries(pluginDirectory.get())) {
        loadLayer(entry, found, problems);
      }
    }
    found.sort(
        Comparator.comparing((Found f) -> ExtensionPoint.all().indexOf(f.point()))
            .thenComparing(f -> f.info().name())
            .thenComparing(f -> f.info().location()));
    return new PluginHost(found, problems);
  }

  /**
   * Returns the one provider of an extension point with the configured name.
   *
   * @throws KoraException {@code INVALID_ARGUMENT} when no provider or several providers have the
   *     name, or when a plugin of the extension point (or a plugin jar of unknown extension point)
   *     could not be loaded; the message names what was found and where
   */
  public <P extends PluginProvider<?>> P select(ExtensionPoint<P> point, String name) {
    Objects.requireNonNull(point, "point");
    Objects.requireNonNull(name, "name");
    var blocking = problems.stream().filter(p -> p.concerns(point)).toList();
    if (!blocking.isEmpty()) {
      throw KoraException.invalidArgument(
          "cannot select the %s plugin '%s' because %d plugin(s) could not be loaded: %s",
          point.label(),
          name,
          blocking.size(),
          blocking.stream().map(PluginProblem::message).collect(Collectors.joining("; ")));
    }
    var candidates = found.stream().filter(f -> f.point() == point).toList();
    var matches = candidates.stream().filter(f -> f.info().name().equals(name)).toList();
    if (matches.isEmpty()) {
      throw KoraException.invalidArgument(
          "no %s plugin named '%s'; found: %s",
          point.label(), name, describe(candidates.stream().map(Found::info).toList()));
    }
    if (matches.size() > 1) {
      throw KoraException.invalidArgument(
          "%d %s plugins are named '%s'; keep only one of: %s",
          matches.size(),
          point.label(),
          name,
          describe(matches.stream().map(Found::info).toList()));
    }
    return point.providerType().cast(matches.getFirst().provider());
  }

  /**
   * Returns every provider of an extension point, by name, for a host that uses all of them (such
   * as every registry plugin at once).
   *
   * @throws KoraException {@code INVALID_ARGUMENT} when a plugin of the extension point could not
   *     be loaded or two providers share a name; the message says which
   */
  public <P extends PluginProvider<?>> List<P> providers(ExtensionPoint<P> point) {
    Objects.requireNonNull(point, "point");
    var names = plugins(point).stream().map(PluginInfo::name).distinct().toList();
    return names.stream().map(name -> select(point, name)).toList();
  }

  /** Returns every provider found, by extension point, then name. */
  public List<PluginInfo> plugins() {
    return found.stream().map(Found::info).toList();
  }

  /** Returns the providers found for one extension point, by name. */
  public List<PluginInfo> plugins(ExtensionPoint<?> point) {
    return found.stream().filter(f -> f.point() == point).map(Found::info).toList();
  }

  /** Returns what could not be loaded, in the order it was met. */
  public List<PluginProblem> problems() {
    return problems;
  }

  private static String describe(List<PluginInfo> infos) {
    if (infos.isEmpty()) {
      return "none";
    }
    return infos.stream().map(PluginInfo::where).collect(Collectors.joining(", "));
  }

  private static List<Path> entries(Path directory) {
    if (!Files.isDirectory(directory)) {
      throw KoraException.invalidArgument(
          "plugin directory %s does not exist or is not a directory", directory);
    }
    try (var stream = Files.list(directory)) {
      return stream
          .filter(p -> !p.getFileName().toString().startsWith("."))
          .filter(
              p ->
                  Files.isDirectory(p)
                      || (Files.isRegularFile(p) && p.getFileName().toString().endsWith(".jar")))
          .sorted()
          .toList();
    } catch (IOException e) {
      throw new KoraException(
          dev.runkora.spi.core.ErrorKind.UNAVAILABLE,
          "cannot read plugin directory %s: %s".formatted(directory, e.getMessage()),
          e);
    }
  }

  private static void loadBootLayer(List<Found> found, List<PluginProblem> problems) {
    var loader = PluginHost.class.getClassLoader();
    for (ExtensionPoint<?> point : ExtensionPoint.all()) {
      try {
        var providers =
            ServiceLoader.load(point.providerType(), loader).stream()
                .filter(
                    p -> {
                      var module = p.type().getModule();
                      return !module.isNamed() || module.getLayer() == ModuleLayer.boot();
                    })
                .toList();
        for (var provider : providers) {
          var module = provider.type().getModule();
          var location = module.isNamed() ? BOOT_LAYER : CLASS_PATH;
          instantiate(point, provider, location, found, problems);
        }
      } catch (ServiceConfigurationError e) {
        problems.add(
            new PluginProblem(
                Optional.of(point.label()),
                BOOT_LAYER,
                "%s plugins on the module path or class path cannot be listed: %s"
                    .formatted(point.label(), causeText(e))));
      }
    }
  }

  private static void loadLayer(Path entry, List<Found> found, List<PluginProblem> problems) {
    ModuleLayer layer;
    Configuration configuration;
    List<String> moduleNames;
    try {
      var finder = ModuleFinder.of(entry);
      moduleNames =
          finder.findAll().stream()
              .map(ModuleReference::descriptor)
              .map(d -> d.name())
              .sorted()
              .toList();
      if (moduleNames.isEmpty()) {
        problems.add(
            new PluginProblem(
                Optional.empty(), entry.toString(), "plugin %s holds no jar".formatted(entry)));
        return;
      }
      var boot = ModuleLayer.boot();
      configuration =
          boot.configuration()
              .resolveAndBind(finder, ModuleFinder.of(), new TreeSet<>(moduleNames));
      layer = boot.defineModulesWithOneLoader(configuration, PluginHost.class.getClassLoader());
    } catch (RuntimeException e) {
      // FindException, ResolutionException, LayerInstantiationException: the jar is not usable.
      problems.add(
          new PluginProblem(
              Optional.empty(),
              entry.toString(),
              "plugin %s cannot be loaded as a module layer: %s".formatted(entry, causeText(e))));
      return;
    }
    int provided = 0;
    for (ExtensionPoint<?> point : ExtensionPoint.all()) {
      try {
        var providers =
            ServiceLoader.load(layer, point.providerType()).stream()
                .filter(p -> p.type().getModule().getLayer() == layer)
                .toList();
        for (var provider : providers) {
          provided++;
          var location =
              configuration
                  .findModule(provider.type().getModule().getName())
                  .flatMap(m -> m.reference().location())
                  .map(uri -> Path.of(uri).toString())
                  .orElse(entry.toString());
          instantiate(point, provider, location, found, problems);
        }
      } catch (ServiceConfigurationError e) {
        provided++;
        problems.add(
            new PluginProblem(
                Optional.of(point.label()),
                entry.toString(),
                "%s plugins of %s (module %s) cannot be listed: %s"
                    .formatted(
                        point.label(), entry, String.join(", ", moduleNames), causeText(e))));
      }
    }
    if (provided == 0) {
      problems.add(
          new PluginProblem(
              Optional.empty(),
              entry.toString(),
              ("plugin %s (module %s) provides none of kora's extension points; a plugin declares"
                      + " 'provides dev.runkora.spi.<point>.<Point>Provider with ...' in its"
                      + " module-info or lists its provider in META-INF/services")
                  .formatted(entry, String.join(", ", moduleNames))));
    }
  }

  private static void instantiate(
      ExtensionPoint<?> point,
      ServiceLoader.Provider<? extends PluginProvider<?>> provider,
      String location,
      List<Found> found,
      List<PluginProblem> problems) {
    var module = provider.type().getModule();
    var moduleName = module.isNamed() ? module.getName() : "unnamed module";
    PluginProvider<?> instance;
    try {
      instance = provider.get();
    } catch (ServiceConfigurationError | RuntimeException | LinkageError e) {
      problems.add(
          new PluginProblem(
              Optional.of(point.label()),
              location,
              "%s plugin %s in module %s (%s) could not be created: %s"
                  .formatted(
                      point.label(),
                      provider.type().getName(),
                      moduleName,
                      location,
                      causeText(e))));
      return;
    }
    try {
      var name = instance.name();
      if (name == null || !NAME.matcher(name).matches()) {
        problems.add(
            new PluginProblem(
                Optional.of(point.label()),
                location,
                "%s plugin %s in module %s (%s) has the name '%s', which does not match %s"
                    .formatted(
                        point.label(),
                        provider.type().getName(),
                        moduleName,
                        location,
                        name,
                        NAME.pattern())));
        return;
      }
      var capabilities = new TreeSet<String>();
      for (Enum<?> capability : instance.capabilities()) {
        capabilities.add(capability.name());
      }
      var description = Objects.requireNonNullElse(instance.description(), "");
      found.add(
          new Found(
              point,
              instance,
              new PluginInfo(
                  point.label(), name, description, capabilities, moduleName, location)));
    } catch (RuntimeException | LinkageError e) {
      problems.add(
          new PluginProblem(
              Optional.of(point.label()),
              location,
              "%s plugin %s in module %s (%s) cannot describe itself: %s"
                  .formatted(
                      point.label(),
                      provider.type().getName(),
                      moduleName,
                      location,
                      causeText(e))));
    }
  }

  /** Returns the innermost meaningful cause as {@code Type: message}. */
  private static String causeText(Throwable error) {
    Throwable cause = error;
    while (cause.getCause() != null
        && (cause instanceof ServiceConfigurationError
            || cause instanceof InvocationTargetException
            || cause instanceof ExceptionInInitializerError)) {
      cause = cause.getCause();
    }
    var message = cause.getMessage();
    return message == null
        ? cause.getClass().getName()
        : cause.getClass().getName() + ": " + message;
  }
}
