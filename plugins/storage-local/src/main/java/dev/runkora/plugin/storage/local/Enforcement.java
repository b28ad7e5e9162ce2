package dev.runkora.plugin.storage.local;

/** How a workspace's size is held. */
enum Enforcement {
  /** A plain directory: the size is recorded and reported only. */
  NONE,
  /** An ext4 image of the size, loop-mounted on the directory: writes beyond the size fail. */
  LOOP;

  String configName() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
