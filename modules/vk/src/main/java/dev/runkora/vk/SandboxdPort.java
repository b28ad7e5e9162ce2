package dev.runkora.vk;

import dev.runkora.api.ClaimRequest;
import dev.runkora.api.ClaimResponse;
import dev.runkora.api.Info;
import dev.runkora.api.SandboxRow;
import dev.runkora.api.SandboxdClient;
import java.util.List;

/**
 * The sandboxd calls vk-sandbox makes: a narrow interface so that the claim logic can be tested
 * against a small fake. Every failure is a {@link dev.runkora.api.ApiException}.
 */
interface SandboxdPort {
  /** {@code POST /v1/claim} with the node token. */
  ClaimResponse claim(ClaimRequest request);

  /** {@code POST /v1/sandboxes/{id}/release} with the sandbox token; 404 is an exception. */
  void release(String id, String token);

  /** {@code GET /v1/sandboxes}; a failure is never an empty list. */
  List<SandboxRow> list();

  /** {@code GET /v1/info}. */
  Info info();

  /** The port over a real client. */
  static SandboxdPort of(SandboxdClient client) {
    return new SandboxdPort() {
      @Override
      public ClaimResponse claim(ClaimRequest request) {
        return client.claim(request);
      }

      @Override
      public void release(String id, String token) {
        client.release(id, token);
      }

      @Override
      public List<SandboxRow> list() {
        return client.list();
      }

      @Override
      public Info info() {
        return client.info();
      }
    };
  }
}
