/**
 * The {@code local} storage class: workspaces are directories on this node's disk, under a data
 * root, each with a small metadata file written atomically. Workspaces are {@code ReadWriteOnce}: a
 * node-local directory is not reachable from another node by itself.
 *
 * <p>By default ({@code enforce=none}) a workspace's size is recorded and reported, and its use is
 * measured, but writes beyond it are not stopped. With {@code enforce=loop} each workspace is an
 * ext4 file system in a sparse image of its size, loop-mounted on its directory, so writes beyond
 * the size fail with "no space left on device"; this needs root, {@code /dev/loop-control}, {@code
 * mkfs.ext4}, {@code mount}, {@code umount}, {@code losetup} and {@code resize2fs}.
 */
module dev.runkora.plugin.storage.local {
  requires dev.runkora.spi.storage;

  provides dev.runkora.spi.storage.StorageProvider with
      dev.runkora.plugin.storage.local.LocalStorageProvider;
}
