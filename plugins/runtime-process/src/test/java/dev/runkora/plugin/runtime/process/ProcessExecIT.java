package dev.runkora.plugin.runtime.process;

import dev.runkora.conformance.runtime.RuntimeExecSuite;
import dev.runkora.spi.runtime.RuntimeProvider;

/** The runtime exec conformance suite against the process runtime. */
class ProcessExecIT extends RuntimeExecSuite {

  @Override
  protected RuntimeProvider provider() {
    return new ProcessRuntimeProvider();
  }
}
