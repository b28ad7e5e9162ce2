package dev.runkora.spi.core;

/**
 * The closed set of failure kinds a plugin reports. The host maps each kind to one behaviour (an
 * HTTP status, a CR condition, a retry), so a plugin picks the kind by what the caller should do
 * next, not by what went wrong inside.
 */
public enum ErrorKind {
  /** The named thing does not exist. Callers that wanted it gone treat this as success. */
  NOT_FOUND,
  /** A thing of that name exists already and the call would replace it. */
  ALREADY_EXISTS,
  /** The caller's input is wrong; retrying the same call fails the same way. */
  INVALID_ARGUMENT,
  /** The plugin does not declare the capability the call needs. */
  UNSUPPORTED,
  /** Something the plugin depends on is not reachable now; the same call may succeed later. */
  UNAVAILABLE,
  /** A limit was reached (memory, disk, processes, a quota); retrying needs capacity first. */
  RESOURCE_EXHAUSTED,
  /** A bug or an unexpected state inside the plugin or on the host. */
  INTERNAL
}
