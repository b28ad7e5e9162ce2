package dev.runkora.vk;

import io.kubernetes.client.openapi.ApiException;

/** Turns a client-java failure into a sentence for a log line or a start-up refusal. */
final class ApiErrors {
  private ApiErrors() {}

  /**
   * Describes a failed API call: the transport failure when the API server did not answer (code 0),
   * else the HTTP status and the server's message.
   */
  static String describe(ApiException e) {
    if (e.getCode() == 0) {
      Throwable cause = e.getCause() != null ? e.getCause() : e;
      return "the API server did not answer (" + cause + ")";
    }
    String body = e.getResponseBody();
    return "HTTP " + e.getCode() + (body == null || body.isBlank() ? "" : ": " + body.strip());
  }
}
