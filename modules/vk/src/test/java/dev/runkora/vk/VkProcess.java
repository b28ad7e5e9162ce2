package dev.runkora.vk;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** vk-sandbox as its own JVM, launched from the test's module path (and class path). */
final class VkProcess {
  private VkProcess() {}

  static Process start(Path kubeconfig, Path log, List<String> flags) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(
        List.of(
            "--module-path",
            System.getProperty("jdk.module.path"),
            // Automatic modules (client-java) do not pull in their own dependencies.
            "--add-modules",
            "ALL-MODULE-PATH",
            "--class-path",
            System.getProperty("java.class.path"),
            "--add-exports",
            "okhttp3/okhttp3.internal.tls=io.kubernetes.client.java.api",
            "--add-exports",
            "okhttp3/okhttp3.internal.http=io.kubernetes.client.java.api",
            "-m",
            "dev.runkora.vk/dev.runkora.vk.Main"));
    command.addAll(flags);
    ProcessBuilder b =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    b.environment().put("KUBECONFIG", kubeconfig.toString());
    return b.start();
  }
}
