package dev.runkora.spi.registry;

import dev.runkora.spi.core.KoraException;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * A parsed image reference: {@code [registry/]repository[:tag][@digest]}, with Docker's defaults
 * ({@code docker.io}, {@code library/}, {@code latest}). Every plugin parses references through
 * {@link #parse}, so that all of them agree.
 *
 * <p>A name without a registry part that is a single word (such as {@code host}) is still a valid
 * reference: plugins that serve named templates read {@link #original()}.
 *
 * @param original the text as given
 * @param registry the registry host with its port, such as {@code docker.io} or {@code
 *     127.0.0.1:5000}
 * @param repository the repository path, such as {@code library/busybox}
 * @param tag the tag, or empty when only a digest was given
 * @param digest the digest ({@code sha256:<64 hex>}), or empty
 */
public record ImageReference(
    String original, String registry, String repository, String tag, String digest) {

  private static final Pattern COMPONENT = Pattern.compile("[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*");
  private static final Pattern TAG = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}");
  private static final Pattern DIGEST = Pattern.compile("sha256:[a-f0-9]{64}|sha512:[a-f0-9]{128}");
  private static final Pattern HOST =
      Pattern.compile(
          "(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)(?:\\.[A-Za-z0-9-]+)*(?::[0-9]{1,5})?|\\[[0-9a-fA-F:]+\\](?::[0-9]{1,5})?");

  /** Checks for nulls. */
  public ImageReference {
    Objects.requireNonNull(original, "original");
    Objects.requireNonNull(registry, "registry");
    Objects.requireNonNull(repository, "repository");
    Objects.requireNonNull(tag, "tag");
    Objects.requireNonNull(digest, "digest");
  }

  /**
   * Parses a reference.
   *
   * @throws KoraException {@code INVALID_ARGUMENT} with the reason when it is malformed
   */
  public static ImageReference parse(String text) {
    if (text == null || text.isBlank()) {
      throw KoraException.invalidArgument("image reference is empty");
    }
    if (text.length() > 255 * 2) {
      throw KoraException.invalidArgument("image reference is longer than 510 characters");
    }
    String rest = text;
    String digest = "";
    int at = rest.indexOf('@');
    if (at >= 0) {
      digest = rest.substring(at + 1);
      rest = rest.substring(0, at);
      if (!DIGEST.matcher(digest).matches()) {
        throw KoraException.invalidArgument(
            "image reference '%s' has a malformed digest (expected sha256:<64 hex>)", text);
      }
    }
    String tag = "";
    int slash = rest.lastIndexOf('/');
    int colon = rest.lastIndexOf(':');
    if (colon > slash) {
      tag = rest.substring(colon + 1);
      rest = rest.substring(0, colon);
      if (!TAG.matcher(tag).matches()) {
        throw KoraException.invalidArgument(
            "image reference '%s' has a malformed tag '%s'", text, tag);
      }
    }
    String registry = "docker.io";
    String repository = rest;
    int first = rest.indexOf('/');
    if (first > 0) {
      String head = rest.substring(0, first);
      if (head.contains(".")
          || head.contains(":")
          || head.equals("localhost")
          || head.startsWith("[")) {
        registry = head;
        repository = rest.substring(first + 1);
        if (!HOST.matcher(registry).matches()) {
          throw KoraException.invalidArgument(
              "image reference '%s' has a malformed registry host '%s'", text, registry);
        }
      }
    }
    if (repository.isEmpty()) {
      throw KoraException.invalidArgument("image reference '%s' has no repository", text);
    }
    for (String component : repository.split("/", -1)) {
      if (!COMPONENT.matcher(component).matches()) {
        throw KoraException.invalidArgument(
            "image reference '%s' has a malformed repository part '%s' (lower-case letters, digits and . _ - only)",
            text, component);
      }
    }
    if (registry.equals("docker.io") && !repository.contains("/")) {
      repository = "library/" + repository;
    }
    if (tag.isEmpty() && digest.isEmpty()) {
      tag = "latest";
    }
    return new ImageReference(text, registry, repository, tag, digest);
  }

  /** Returns the digest, when the reference pins one. */
  public Optional<String> pinnedDigest() {
    return digest.isEmpty() ? Optional.empty() : Optional.of(digest);
  }

  /** Returns the tag or, without one, the digest: what a registry's manifest endpoint takes. */
  public String manifestReference() {
    return digest.isEmpty() ? tag : digest;
  }

  /** Returns the same reference read from another registry host (a mirror). */
  public ImageReference withRegistry(String host) {
    return new ImageReference(original, host, repository, tag, digest);
  }

  /** Returns the canonical form, {@code registry/repository[:tag][@digest]}. */
  public String canonical() {
    var sb = new StringBuilder(registry).append('/').append(repository);
    if (!tag.isEmpty()) {
      sb.append(':').append(tag);
    }
    if (!digest.isEmpty()) {
      sb.append('@').append(digest);
    }
    return sb.toString();
  }
}
