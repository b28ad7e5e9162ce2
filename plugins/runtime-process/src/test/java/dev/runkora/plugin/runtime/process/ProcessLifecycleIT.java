package dev.runkora.plugin.runtime.process;

import dev.runkora.conformance.runtime.RuntimeLifecycleSuite;
import dev.runkora.spi.runtime.RuntimeProvider;

/** The runtime lifecycle conformance suite against the process runtime. */
class ProcessLifecycleIT extends RuntimeLifecycleSuite {

  @Override
  protected RuntimeProvider provider() {
    return new ProcessRuntimeProvider();
  }
}
