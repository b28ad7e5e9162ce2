package dev.runkora.plugin.runtime.process;

import dev.runkora.conformance.runtime.RuntimeMountSuite;
import dev.runkora.spi.runtime.RuntimeProvider;

/** The runtime mount conformance suite against the process runtime. */
class ProcessMountIT extends RuntimeMountSuite {

  @Override
  protected RuntimeProvider provider() {
    return new ProcessRuntimeProvider();
  }
}
