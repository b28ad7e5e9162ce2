/**
 * The {@code process} runtime: a sandbox is a working directory on the host and its commands are
 * plain child processes, with no isolation and no limits. It is chosen only explicitly, for
 * development on a machine without bubblewrap, and it is the baseline that benchmarks of real
 * runtimes are measured against.
 */
module dev.runkora.plugin.runtime.process {
  requires dev.runkora.spi.runtime;

  provides dev.runkora.spi.runtime.RuntimeProvider with
      dev.runkora.plugin.runtime.process.ProcessRuntimeProvider;
}
