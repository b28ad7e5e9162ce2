package dev.runkora.plugin.runtime.bwrap;

import dev.runkora.conformance.runtime.RuntimeLimitsSuite;
import dev.runkora.spi.runtime.RuntimeProvider;

/** The runtime limits conformance suite against bubblewrap. */
class BwrapLimitsIT extends RuntimeLimitsSuite {

  @Override
  protected RuntimeProvider provider() {
    return new BwrapRuntimeProvider();
  }
}
