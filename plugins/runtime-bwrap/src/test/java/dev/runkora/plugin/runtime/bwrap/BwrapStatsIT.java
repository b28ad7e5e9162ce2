package dev.runkora.plugin.runtime.bwrap;

import dev.runkora.conformance.runtime.RuntimeStatsSuite;
import dev.runkora.spi.runtime.RuntimeProvider;

/** The runtime stats conformance suite against bubblewrap. */
class BwrapStatsIT extends RuntimeStatsSuite {

  @Override
  protected RuntimeProvider provider() {
    return new BwrapRuntimeProvider();
  }
}
