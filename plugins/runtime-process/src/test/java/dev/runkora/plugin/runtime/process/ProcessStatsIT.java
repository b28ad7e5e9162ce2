package dev.runkora.plugin.runtime.process;

import dev.runkora.conformance.runtime.RuntimeStatsSuite;
import dev.runkora.spi.runtime.RuntimeProvider;

/** The runtime stats conformance suite against the process runtime. */
class ProcessStatsIT extends RuntimeStatsSuite {

  @Override
  protected RuntimeProvider provider() {
    return new ProcessRuntimeProvider();
  }
}
