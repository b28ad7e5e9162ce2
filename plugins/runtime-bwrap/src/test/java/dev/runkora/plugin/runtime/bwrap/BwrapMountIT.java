package dev.runkora.plugin.runtime.bwrap;

import dev.runkora.conformance.runtime.RuntimeMountSuite;
import dev.runkora.spi.runtime.RuntimeProvider;

/** The runtime mount conformance suite against bubblewrap. */
class BwrapMountIT extends RuntimeMountSuite {

  @Override
  protected RuntimeProvider provider() {
    return new BwrapRuntimeProvider();
  }
}
