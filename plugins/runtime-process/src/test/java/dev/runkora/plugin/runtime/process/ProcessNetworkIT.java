package dev.runkora.plugin.runtime.process;

import dev.runkora.conformance.runtime.RuntimeNetworkSuite;
import dev.runkora.spi.runtime.RuntimeProvider;

/** The runtime network conformance suite against the process runtime. */
class ProcessNetworkIT extends RuntimeNetworkSuite {

  @Override
  protected RuntimeProvider provider() {
    return new ProcessRuntimeProvider();
  }
}
