package dev.runkora.plugin.registry.oci.content;

import dev.runkora.spi.core.KoraException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.regex.Pattern;

/** Content digests as OCI names them: {@code sha256:<64 lower-case hex>}. */
public final class Digests {
  private static final Pattern SHA256 = Pattern.compile("sha256:[a-f0-9]{64}");

  private Digests() {}

  /**
   * Checks that a digest is a SHA-256 digest, the only algorithm the cache stores.
   *
   * @throws KoraException {@code INVALID_ARGUMENT} for anything else, so that a digest never
   *     becomes a path outside the cache
   */
  public static String requireSha256(String digest) {
    if (digest == null || !SHA256.matcher(digest).matches()) {
      throw KoraException.invalidArgument(
          "digest '%s' is not sha256:<64 lower-case hex>; only SHA-256 content is read", digest);
    }
    return digest;
  }

  /** Returns the hex part of a SHA-256 digest. */
  public static String hex(String digest) {
    return requireSha256(digest).substring("sha256:".length());
  }

  /** Returns a fresh SHA-256 message digest. */
  public static MessageDigest newSha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw KoraException.internal(e, "the JDK has no SHA-256");
    }
  }

  /** Returns the digest of some bytes. */
  public static String of(byte[] content) {
    return "sha256:" + HexFormat.of().formatHex(newSha256().digest(content));
  }

  /** Returns the digest a finished message digest stands for. */
  public static String of(MessageDigest finished) {
    return "sha256:" + HexFormat.of().formatHex(finished.digest());
  }
}
