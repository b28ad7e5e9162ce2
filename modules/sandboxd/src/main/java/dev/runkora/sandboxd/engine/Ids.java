package dev.runkora.sandboxd.engine;

import java.security.SecureRandom;
import java.util.HexFormat;

/** Random identifiers and secrets in the API's formats. */
public final class Ids {

  /** The prefix of every runtime sandbox the daemon owns. */
  public static final String VM_PREFIX = "sbx-";

  private static final SecureRandom RANDOM = new SecureRandom();

  private Ids() {}

  private static String hex(int bytes) {
    byte[] b = new byte[bytes];
    RANDOM.nextBytes(b);
    return HexFormat.of().formatHex(b);
  }

  /** Returns a sandbox id: {@code sb_} and 16 lowercase hex characters. */
  public static String sandboxId() {
    return "sb_" + hex(8);
  }

  /** Returns a sandbox token: 32 lowercase hex characters. */
  public static String token() {
    return hex(16);
  }

  /** Returns a runtime sandbox name: {@code sbx-} and 16 lowercase hex characters. */
  public static String vmName() {
    return VM_PREFIX + hex(8);
  }
}
