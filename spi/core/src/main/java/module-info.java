/**
 * What every kora extension point shares: the error kind a plugin reports, the configuration a
 * plugin is created from, and the descriptor the plugin host reads from every provider.
 *
 * <p>Depends on {@code java.base} only, like every {@code spi/*} module.
 */
module dev.runkora.spi.core {
  exports dev.runkora.spi.core;
}
