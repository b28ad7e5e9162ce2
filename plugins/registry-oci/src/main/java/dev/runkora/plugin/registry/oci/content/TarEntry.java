package dev.runkora.plugin.registry.oci.content;

/**
 * One entry of a tar stream, with the long names and pax overrides already applied.
 *
 * @param name the path as written in the archive (not yet checked)
 * @param type what the entry is
 * @param mode the permission bits, including set-user-id, set-group-id and sticky
 * @param uid the owner's user id
 * @param gid the owner's group id
 * @param size the length of the content that follows (regular files only)
 * @param modifiedSeconds the modification time, in seconds since the epoch
 * @param linkName the target of a symbolic or hard link, or empty
 */
public record TarEntry(
    String name,
    Type type,
    int mode,
    long uid,
    long gid,
    long size,
    long modifiedSeconds,
    String linkName) {

  /** The kinds of tar entries. */
  public enum Type {
    /** A regular file; its content follows. */
    FILE,
    /** A directory. */
    DIRECTORY,
    /** A symbolic link to {@link TarEntry#linkName()}. */
    SYMLINK,
    /** A hard link to the earlier entry {@link TarEntry#linkName()}. */
    HARDLINK,
    /** A character device node. */
    CHARACTER_DEVICE,
    /** A block device node. */
    BLOCK_DEVICE,
    /** A named pipe. */
    FIFO
  }
}
