/**
 * The sandboxd v1 HTTP API as Java: the wire types as records with their JSON mapping, and {@link
 * dev.runkora.api.SandboxdClient}, a client on {@code java.net.http} for kora-sandboxd and for any
 * daemon that speaks the same contract.
 *
 * <p>Used by the {@code kora} CLI, by vk-sandbox and by tests. Depends on the JDK and jakarta.json
 * (with Parsson as its provider) only.
 */
module dev.runkora.api {
  requires transitive java.net.http;
  requires transitive jakarta.json;
  requires org.eclipse.parsson;

  exports dev.runkora.api;
}
