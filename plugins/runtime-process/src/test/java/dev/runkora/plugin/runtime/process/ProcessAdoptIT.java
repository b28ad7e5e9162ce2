package dev.runkora.plugin.runtime.process;

import dev.runkora.conformance.runtime.RuntimeAdoptSuite;
import dev.runkora.spi.runtime.RuntimeProvider;

/** The runtime adopt conformance suite against the process runtime. */
class ProcessAdoptIT extends RuntimeAdoptSuite {

  @Override
  protected RuntimeProvider provider() {
    return new ProcessRuntimeProvider();
  }
}
