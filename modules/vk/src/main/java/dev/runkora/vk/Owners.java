package dev.runkora.vk;

import java.util.Locale;

/**
 * The destroy-authorization verdict of a deleted Pod (reference §7.2): whether its claim is
 * released or preserved for a same-name replacement, decided from the Pod's controller owner.
 */
final class Owners {
  private Owners() {}

  /** What a GET of the owner answered. */
  sealed interface Lookup {
    /** The owner exists. */
    record Found(String uid, boolean deleting) implements Lookup {}

    /** A 404; {@code detailsName} is the {@code status.details.name} of the answer, or empty. */
    record NotFound(String detailsName) implements Lookup {}

    /** Any other failure (403, timeout, 5xx). */
    record Failed(String reason) implements Lookup {}
  }

  /** Reads one owner object. */
  interface Reader {
    Lookup get(String group, String version, String plural, String namespace, String name);
  }

  /** A verdict with its reason, for the log. */
  record Verdict(boolean release, String reason) {}

  /**
   * The verdict for a Pod whose controller reference is given (null for a bare Pod).
   *
   * @param reader null when no owner reader is configured (preserve)
   */
  static Verdict decide(
      String namespace,
      String apiVersion,
      String kind,
      String name,
      String uid,
      boolean hasController,
      Reader reader) {
    if (!hasController) {
      return new Verdict(true, "bare Pod: the Pod is its own teardown intent");
    }
    if (reader == null) {
      return new Verdict(false, "no owner reader configured");
    }
    if (kind == null || kind.isEmpty() || apiVersion == null || apiVersion.isEmpty()) {
      return new Verdict(false, "owner kind or apiVersion unknown");
    }
    String group = "";
    String version = apiVersion;
    int slash = apiVersion.indexOf('/');
    if (slash >= 0) {
      group = apiVersion.substring(0, slash);
      version = apiVersion.substring(slash + 1);
      if (group.isEmpty() || version.isEmpty() || version.contains("/")) {
        return new Verdict(false, "owner apiVersion unparsable: " + apiVersion);
      }
    }
    Lookup lookup = reader.get(group, version, plural(kind), namespace, name);
    return switch (lookup) {
      case Lookup.NotFound nf when name.equals(nf.detailsName()) ->
          new Verdict(true, "owner " + kind + "/" + name + " confirmed gone");
      case Lookup.NotFound nf ->
          new Verdict(false, "owner lookup 404 without the owner's name (endpoint unknown)");
      case Lookup.Failed f -> new Verdict(false, "owner unverifiable: " + f.reason());
      case Lookup.Found f when f.deleting() ->
          new Verdict(true, "owner " + kind + "/" + name + " is being deleted");
      case Lookup.Found f when uid != null && !uid.isEmpty() && !uid.equals(f.uid()) ->
          new Verdict(true, "owner " + kind + "/" + name + " is another generation");
      case Lookup.Found f -> new Verdict(false, "owner " + kind + "/" + name + " is alive");
    };
  }

  /**
   * The resource plural of a kind: {@code s, x, z, ch, sh} take {@code es}, a consonant and {@code
   * y} takes {@code ies}, everything else {@code s}.
   */
  static String plural(String kind) {
    String k = kind.toLowerCase(Locale.ROOT);
    if (k.endsWith("s")
        || k.endsWith("x")
        || k.endsWith("z")
        || k.endsWith("ch")
        || k.endsWith("sh")) {
      return k + "es";
    }
    if (k.length() >= 2 && k.endsWith("y") && "aeiou".indexOf(k.charAt(k.length() - 2)) < 0) {
      return k.substring(0, k.length() - 1) + "ies";
    }
    return k + "s";
  }
}
