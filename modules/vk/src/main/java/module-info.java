/**
 * vk-sandbox: the virtual-kubelet node in front of one sandboxd (seed 001).
 *
 * <p>It registers one virtual Node, renews its Lease, turns every Pod bound to that Node into one
 * sandboxd claim (the Pod is a placeholder, the sandbox is the workload), keeps the per-claim
 * release credentials in a 0600 state file that survives restarts, decides releases from the Pod's
 * controller owner, serves the kubelet API over TLS and can publish a NodeInventory object.
 *
 * <p>The exported package holds the entry point ({@link dev.runkora.vk.Main}), the configuration
 * ({@link dev.runkora.vk.VkConfig}) and the running agent ({@link dev.runkora.vk.VkSandbox});
 * everything else is internal. It talks to sandboxd only through {@code dev.runkora.api}.
 */
module dev.runkora.vk {
  requires dev.runkora.api;
  requires dev.runkora.common;
  requires io.kubernetes.client.java;
  requires io.kubernetes.client.java.api;
  requires java.logging;
  requires io.netty.buffer;
  requires io.netty.codec.http;
  requires io.netty.common;
  requires io.netty.handler;
  requires io.netty.transport;
  // client-java's call types are okhttp's. okhttp 5 is a named module that exports its internal
  // TLS package only to friends, so every launch adds
  // --add-exports okhttp3/okhttp3.internal.tls=io.kubernetes.client.java.api and the same for
  // okhttp3.internal.http, which client-java's ApiClient uses.
  requires okhttp3;
  requires org.bouncycastle.pkix;
  requires org.bouncycastle.provider;

  exports dev.runkora.vk;
}
