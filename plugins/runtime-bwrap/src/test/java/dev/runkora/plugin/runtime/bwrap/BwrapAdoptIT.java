package dev.runkora.plugin.runtime.bwrap;

import dev.runkora.conformance.runtime.RuntimeAdoptSuite;
import dev.runkora.spi.runtime.RuntimeProvider;

/** The runtime adopt conformance suite against bubblewrap. */
class BwrapAdoptIT extends RuntimeAdoptSuite {

  @Override
  protected RuntimeProvider provider() {
    return new BwrapRuntimeProvider();
  }
}
