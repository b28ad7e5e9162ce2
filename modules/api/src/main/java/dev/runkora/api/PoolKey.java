package dev.runkora.api;

import jakarta.json.JsonObject;
import java.util.Objects;

/**
 * The key of a warm pool and of every sandbox: {@code (template, net, size)}.
 *
 * @param template image or template name, for example {@code host}
 * @param net {@code none} or {@code egress}
 * @param size a size tier: {@code small}, {@code medium}, {@code large}, {@code xlarge}, {@code
 *     2xlarge}
 */
public record PoolKey(String template, String net, String size) {
  /** The network mode a claim gets when it names none. */
  public static final String DEFAULT_NET = "none";

  /** The size tier a claim gets when it names none. */
  public static final String DEFAULT_SIZE = "small";

  /** Fills empty {@code net} and {@code size} with their defaults. */
  public PoolKey {
    Objects.requireNonNull(template, "template");
    net = net == null || net.isEmpty() ? DEFAULT_NET : net;
    size = size == null || size.isEmpty() ? DEFAULT_SIZE : size;
  }

  /** A key with the default net and size. */
  public static PoolKey of(String template) {
    return new PoolKey(template, DEFAULT_NET, DEFAULT_SIZE);
  }

  /** The JSON object {@code {"template", "net", "size"}}. */
  public JsonObject toJson() {
    return Wire.object().add("template", template).add("net", net).add("size", size).build();
  }

  /** Reads a key object; missing {@code net} and {@code size} take their defaults. */
  public static PoolKey fromJson(JsonObject o) {
    return new PoolKey(Wire.string(o, "template"), Wire.string(o, "net"), Wire.string(o, "size"));
  }

  /** {@code template/net/size}, the form the CLI prints. */
  @Override
  public String toString() {
    return template + "/" + net + "/" + size;
  }
}
