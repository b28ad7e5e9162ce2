package dev.runkora.spi.storage;

import java.util.List;
import java.util.Optional;

/**
 * A live storage class: provisions, finds, grows and releases workspaces.
 *
 * <p>Called from many threads at once (claim handlers, reconcilers). Calls on different workspaces
 * must not block each other.
 */
public interface StorageClass extends AutoCloseable {

  /** Returns what the class offers. Cheap, no I/O. */
  StorageDescription describe();

  /**
   * Provisions a workspace, or returns the existing one of that name when it has the same size and
   * access mode (idempotent, so a reconciler may call it every pass). A workspace is never
   * re-created: what it holds survives.
   *
   * @throws dev.runkora.spi.core.KoraException {@code UNSUPPORTED} for an access mode the class
   *     lacks; {@code ALREADY_EXISTS} when a workspace of that name has another size or access
   *     mode; {@code INVALID_ARGUMENT} for a size the class cannot make (such as one too small for
   *     a file system); {@code RESOURCE_EXHAUSTED} when there is no room
   */
  Workspace provision(WorkspaceRequest request);

  /**
   * Returns a workspace by name, with its current use when measured.
   *
   * @throws dev.runkora.spi.core.KoraException {@code INVALID_ARGUMENT} for a name no workspace can
   *     have (see {@link WorkspaceRequest#name()}), so that no name reaches outside the class
   */
  Optional<Workspace> find(String name);

  /**
   * Lists every workspace of the class.
   *
   * @throws dev.runkora.spi.core.KoraException {@code UNAVAILABLE} when the listing failed (never
   *     an empty list instead)
   */
  List<Workspace> list();

  /**
   * Grows a workspace to a new size. Needs {@link StorageCapability#EXPANSION}.
   *
   * @throws dev.runkora.spi.core.KoraException {@code UNSUPPORTED} without the capability; {@code
   *     NOT_FOUND} for an unknown workspace; {@code INVALID_ARGUMENT} for a smaller size; {@code
   *     RESOURCE_EXHAUSTED} when there is no room; {@code UNAVAILABLE} when it cannot grow now (a
   *     class that grows only unused workspaces, while a sandbox holds it)
   */
  Workspace expand(String name, long sizeBytes);

  /**
   * Deletes a workspace and everything in it. Idempotent: releasing an unknown name succeeds.
   *
   * @throws dev.runkora.spi.core.KoraException {@code INVALID_ARGUMENT} for a name no workspace can
   *     have; {@code INTERNAL} when it could not be removed
   */
  void release(String name);

  /** Releases what the object holds; workspaces stay. Idempotent. */
  @Override
  void close();
}
