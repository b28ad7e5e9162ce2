package dev.runkora.pluginhost;

import dev.runkora.spi.autoscaler.AutoscalerProvider;
import dev.runkora.spi.core.PluginProvider;
import dev.runkora.spi.registry.RegistryProvider;
import dev.runkora.spi.runtime.RuntimeProvider;
import dev.runkora.spi.storage.StorageProvider;

/**
 * One of kora's four extension points, with the provider interface the plugin host looks up.
 *
 * @param <P> the provider interface
 */
public final class ExtensionPoint<P extends PluginProvider<?>> {

  /** Sandbox runtimes ({@code bwrap}, {@code process}). */
  public static final ExtensionPoint<RuntimeProvider> RUNTIME =
      new ExtensionPoint<>("runtime", RuntimeProvider.class);

  /** Image registries ({@code oci}, {@code host}, {@code oci-layout}). */
  public static final ExtensionPoint<RegistryProvider> REGISTRY =
      new ExtensionPoint<>("registry", RegistryProvider.class);

  /** Storage classes ({@code local}). */
  public static final ExtensionPoint<StorageProvider> STORAGE =
      new ExtensionPoint<>("storage", StorageProvider.class);

  /** Autoscalers ({@code static}, {@code watermark}). */
  public static final ExtensionPoint<AutoscalerProvider> AUTOSCALER =
      new ExtensionPoint<>("autoscaler", AutoscalerProvider.class);

  private static final java.util.List<ExtensionPoint<?>> ALL =
      java.util.List.of(RUNTIME, REGISTRY, STORAGE, AUTOSCALER);

  private final String label;
  private final Class<P> providerType;

  private ExtensionPoint(String label, Class<P> providerType) {
    this.label = label;
    this.providerType = providerType;
  }

  /** Returns the four extension points, in a stable order. */
  public static java.util.List<ExtensionPoint<?>> all() {
    return ALL;
  }

  /** Returns the lower-case word used in messages and configuration, such as {@code runtime}. */
  public String label() {
    return label;
  }

  /** Returns the provider interface. */
  public Class<P> providerType() {
    return providerType;
  }

  @Override
  public String toString() {
    return label;
  }
}
