package dev.runkora.api;

/**
 * Receives the output of a streamed exec as it is produced. Called on the thread that called {@link
 * SandboxdClient#execStream}, in the order the daemon sent the output.
 */
public interface ExecOutput {
  /** A chunk of standard output. */
  void stdout(byte[] data);

  /** A chunk of standard error. */
  void stderr(byte[] data);

  /** The daemon killed the command because it outlived its {@code timeout_seconds}. */
  default void timedOut() {}

  /** An output that writes to the given streams and flushes after each chunk. */
  static ExecOutput to(java.io.OutputStream out, java.io.OutputStream err) {
    return new ExecOutput() {
      @Override
      public void stdout(byte[] data) {
        write(out, data);
      }

      @Override
      public void stderr(byte[] data) {
        write(err, data);
      }

      private static void write(java.io.OutputStream stream, byte[] data) {
        try {
          stream.write(data);
          stream.flush();
        } catch (java.io.IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      }
    };
  }
}
