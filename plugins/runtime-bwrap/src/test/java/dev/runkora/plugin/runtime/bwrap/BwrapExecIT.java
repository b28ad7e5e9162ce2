package dev.runkora.plugin.runtime.bwrap;

import dev.runkora.conformance.runtime.RuntimeExecSuite;
import dev.runkora.spi.runtime.RuntimeProvider;

/** The runtime exec conformance suite against bubblewrap. */
class BwrapExecIT extends RuntimeExecSuite {

  @Override
  protected RuntimeProvider provider() {
    return new BwrapRuntimeProvider();
  }
}
