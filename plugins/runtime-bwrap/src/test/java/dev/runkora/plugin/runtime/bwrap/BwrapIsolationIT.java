package dev.runkora.plugin.runtime.bwrap;

import dev.runkora.conformance.runtime.RuntimeIsolationSuite;
import dev.runkora.spi.runtime.RuntimeProvider;

/** The runtime isolation conformance suite against bubblewrap. */
class BwrapIsolationIT extends RuntimeIsolationSuite {

  @Override
  protected RuntimeProvider provider() {
    return new BwrapRuntimeProvider();
  }
}
