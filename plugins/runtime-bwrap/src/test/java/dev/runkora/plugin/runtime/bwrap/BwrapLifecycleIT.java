package dev.runkora.plugin.runtime.bwrap;

import dev.runkora.conformance.runtime.RuntimeLifecycleSuite;
import dev.runkora.spi.runtime.RuntimeProvider;

/** The runtime lifecycle conformance suite against bubblewrap. */
class BwrapLifecycleIT extends RuntimeLifecycleSuite {

  @Override
  protected RuntimeProvider provider() {
    return new BwrapRuntimeProvider();
  }
}
