package dev.runkora.conformance.runtime;

import dev.runkora.spi.runtime.MountSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A root filesystem for the suites: a directory that becomes {@code /} and the binds a root of that
 * kind comes with.
 *
 * @param root the directory given as {@link dev.runkora.spi.runtime.SandboxSpec#rootFilesystem()}
 * @param mounts the binds every sandbox of this root gets, before a test's own
 */
public record TestRootFilesystem(Path root, List<MountSpec> mounts) {

  /** Copies the list. */
  public TestRootFilesystem {
    mounts = List.copyOf(mounts);
  }

  /**
   * Returns the {@code host} template: an empty root with the host's {@code /usr}, {@code /bin},
   * {@code /sbin}, {@code /lib*} and {@code /etc} bound read-only at the same paths. Commands the
   * suites run ({@code sh}, coreutils, {@code python3}) come from the host.
   *
   * @param emptyRoot an empty directory, created if missing
   */
  public static TestRootFilesystem host(Path emptyRoot) throws IOException {
    Files.createDirectories(emptyRoot);
    var mounts = new ArrayList<MountSpec>();
    for (var path :
        List.of("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc")) {
      if (Files.exists(Path.of(path))) {
        mounts.add(MountSpec.readOnly(Path.of(path), path));
      }
    }
    return new TestRootFilesystem(emptyRoot, mounts);
  }
}
