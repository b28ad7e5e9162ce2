/**
 * The plugin host: finds the providers of kora's four extension points and selects one by its
 * configured name.
 *
 * <p>Built-in plugins are found in the boot layer (the module path, or the class path through
 * {@code META-INF/services}). Third-party plugins are jars in a plugin directory: each jar, or each
 * sub-directory of jars (a plugin with its libraries), is loaded as its own {@link ModuleLayer}
 * whose parent is the boot layer, so plugins cannot see each other's classes. A configured name
 * that matches no provider or several, and a plugin that cannot be loaded, fail start-up with a
 * message that names what was found and where.
 */
module dev.runkora.pluginhost {
  requires transitive dev.runkora.spi.runtime;
  requires transitive dev.runkora.spi.registry;
  requires transitive dev.runkora.spi.storage;
  requires transitive dev.runkora.spi.autoscaler;

  exports dev.runkora.pluginhost;

  uses dev.runkora.spi.runtime.RuntimeProvider;
  uses dev.runkora.spi.registry.RegistryProvider;
  uses dev.runkora.spi.storage.StorageProvider;
  uses dev.runkora.spi.autoscaler.AutoscalerProvider;
}
