package dev.runkora.plugin.runtime.process;

import dev.runkora.conformance.runtime.RuntimeLimitsSuite;
import dev.runkora.spi.runtime.RuntimeProvider;

/** The runtime limits conformance suite against the process runtime. */
class ProcessLimitsIT extends RuntimeLimitsSuite {

  @Override
  protected RuntimeProvider provider() {
    return new ProcessRuntimeProvider();
  }
}
