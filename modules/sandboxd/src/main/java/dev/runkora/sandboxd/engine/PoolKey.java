package dev.runkora.sandboxd.engine;

import dev.runkora.common.json.JsonText;
import dev.runkora.spi.runtime.NetworkMode;
import jakarta.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.regex.Pattern;

/**
 * A pool key: (template, net, size), validated as the API does.
 *
 * @param template an image or template name
 * @param net {@code none} or {@code egress}
 * @param size a size tier name
 */
public record PoolKey(String template, String net, String size) {

  private static final Pattern TEMPLATE = Pattern.compile("[a-zA-Z0-9][a-zA-Z0-9._:/-]{0,62}");

  /** Returns a checked key, with the API's defaults for empty {@code net} and {@code size}. */
  public static PoolKey of(String template, String net, String size) {
    if (template == null || template.isEmpty()) {
      throw ApiException.badRequest("template is required");
    }
    if (!TEMPLATE.matcher(template).matches()) {
      throw ApiException.badRequest(
          "invalid template \"" + printable(template) + "\" (^[a-zA-Z0-9][a-zA-Z0-9._:/-]{0,62}$)");
    }
    String n = net == null || net.isEmpty() ? "none" : net;
    if (!n.equals("none") && !n.equals("egress")) {
      throw ApiException.badRequest("unknown net \"" + printable(n) + "\" (none, egress)");
    }
    String s = size == null || size.isEmpty() ? "small" : size;
    SizeTier.parse(s);
    return new PoolKey(template, n, s);
  }

  private static String printable(String text) {
    var cut = text.length() > 64 ? text.substring(0, 64) + "..." : text;
    return cut.replaceAll("[^\\x20-\\x7e]", "?").replace("\"", "'");
  }

  /** Returns the size tier. */
  public SizeTier tier() {
    return SizeTier.parse(size);
  }

  /** Returns the network mode. */
  public NetworkMode network() {
    return net.equals("egress") ? NetworkMode.EGRESS : NetworkMode.NONE;
  }

  /** Returns {@code template|net|size}, the key the autoscaler sees. */
  public String label() {
    return template + "|" + net + "|" + size;
  }

  /** Returns the stable key hash: the first 16 bytes of SHA-256 over the label, in hex. */
  public String hash() {
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256").digest(label().getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest, 0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Returns {@code {"template", "net", "size"}}. */
  public JsonObject toJson() {
    return JsonText.object().add("template", template).add("net", net).add("size", size).build();
  }
}
