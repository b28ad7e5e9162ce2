package dev.runkora.plugin.runtime.process;

import dev.runkora.conformance.runtime.RuntimeIsolationSuite;
import dev.runkora.spi.runtime.RuntimeProvider;

/** The runtime isolation conformance suite against the process runtime. */
class ProcessIsolationIT extends RuntimeIsolationSuite {

  @Override
  protected RuntimeProvider provider() {
    return new ProcessRuntimeProvider();
  }
}
