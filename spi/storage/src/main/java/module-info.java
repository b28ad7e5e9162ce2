/**
 * The storage-class extension point: what a workspace volume is (access modes, node-local or
 * shared, expansion), how it is provisioned and released, and how a sandbox on this node mounts it.
 *
 * <p>The operator, the node daemon, vk-sandbox and the sandbox mount {@code use} {@link
 * dev.runkora.spi.storage.StorageProvider}; plugins such as {@code local} provide it.
 */
module dev.runkora.spi.storage {
  requires transitive dev.runkora.spi.core;

  exports dev.runkora.spi.storage;
}
