package dev.runkora.vk;

import java.util.List;

/** The {@code vk-sandbox} command ({@code ./kora vk-sandbox [flags]}). */
public final class Main {
  private Main() {}

  /**
   * Runs vk-sandbox until it is stopped; exits 2 on a bad configuration and 1 when it cannot start.
   */
  public static void main(String[] args) {
    System.exit(run(List.of(args)));
  }

  /** Runs vk-sandbox and returns the exit code (without exiting), for embedding. */
  public static int run(List<String> args) {
    try {
      switch (VkConfig.action(args)) {
        case HELP -> {
          System.out.print(VkConfig.help());
          return 0;
        }
        case VERSION -> {
          System.out.println(Version.line());
          return 0;
        }
        case RUN -> {}
      }
      VkConfig config = VkConfig.parse(args, System.getenv());
      VkSandbox agent = VkSandbox.start(config);
      Runtime.getRuntime().addShutdownHook(new Thread(agent::close, "vk-sandbox-stop"));
      agent.awaitStop();
      return 0;
    } catch (VkConfig.Invalid e) {
      System.err.println("vk-sandbox: " + e.getMessage());
      return 2;
    } catch (RuntimeException e) {
      System.err.println("vk-sandbox: cannot start: " + e.getMessage());
      return 1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 1;
    }
  }
}
