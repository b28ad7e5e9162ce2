/**
 * The {@code bwrap} runtime: sandboxes made with bubblewrap (Linux user, mount, pid, ipc, uts and
 * optionally network namespaces) on a copy-on-write view of a root filesystem, limited with cgroup
 * v1 controllers. Commands are forked on request by a small agent already inside each sandbox (the
 * host's static busybox shell), reached through named pipes.
 *
 * <p>It needs root (for cgroups and the host-side overlay and bind mounts), {@code bwrap} 0.8 or
 * newer, util-linux ({@code nsenter}, {@code mount}) and a static {@code busybox} on the host. With
 * {@code --enable-native-access=dev.runkora.plugin.runtime.bwrap} it makes named pipes and mounts
 * with direct system calls; without it, it runs coreutils' {@code mkfifo} and util-linux's {@code
 * mount} and {@code umount} instead. Commands always run through the agent. It exports nothing: the
 * host reaches it only through {@link dev.runkora.spi.runtime.RuntimeProvider}.
 */
module dev.runkora.plugin.runtime.bwrap {
  requires dev.runkora.spi.runtime;

  provides dev.runkora.spi.runtime.RuntimeProvider with
      dev.runkora.plugin.runtime.bwrap.BwrapRuntimeProvider;
}
