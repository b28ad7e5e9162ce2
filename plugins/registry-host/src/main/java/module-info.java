/**
 * The {@code host} image registry: the template {@code host} is this machine's own {@code /usr},
 * {@code /bin}, {@code /sbin}, {@code /lib*} and {@code /etc}, bound read-only into an empty root.
 * Nothing is downloaded and the template is always warm.
 */
module dev.runkora.plugin.registry.host {
  requires dev.runkora.spi.registry;

  provides dev.runkora.spi.registry.RegistryProvider with
      dev.runkora.plugin.registry.host.HostRegistryProvider;
}
