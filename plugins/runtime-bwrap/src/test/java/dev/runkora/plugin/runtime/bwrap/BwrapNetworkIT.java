package dev.runkora.plugin.runtime.bwrap;

import dev.runkora.conformance.runtime.RuntimeNetworkSuite;
import dev.runkora.spi.runtime.RuntimeProvider;

/** The runtime network conformance suite against bubblewrap. */
class BwrapNetworkIT extends RuntimeNetworkSuite {

  @Override
  protected RuntimeProvider provider() {
    return new BwrapRuntimeProvider();
  }
}
