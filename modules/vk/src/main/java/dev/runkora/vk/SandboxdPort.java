package dev.runkora.vk;

import dev.runkora.api.ClaimRequest;
import dev.runkora.api.ClaimResponse;
import dev.runkora.api.ExecOutput;
import dev.runkora.api.ExecRequest;
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

  /** {@code POST /v1/sandboxes/{id}/renew} with the sandbox token: the granted deadline. */
  java.time.Instant renew(String id, String token, long ttlSeconds);

  /** The streaming exec of a sandbox (kora's {@code POST /v1/sandboxes/{id}/exec/stream}). */
  interface Exec {
    /**
     * Runs {@code argv} in the sandbox, handing its output over while it runs.
     *
     * @param stdin the command's standard input until its end; null for none
     * @return the exit code
     */
    int exec(
        String id, String token, List<String> argv, java.io.InputStream stdin, ExecOutput output);

    /** The exec of a real client. */
    static Exec of(SandboxdClient client) {
      return (id, token, argv, stdin, output) ->
          client.execStream(id, token, ExecRequest.of(argv), stdin, output);
    }
  }

  /** kora's output log of a sandbox ({@code GET /v1/sandboxes/{id}/logs}), behind kubectl logs. */
  interface Logs {
    /** Returns what the sandbox's commands wrote to stdout and stderr, raw. */
    byte[] logs(String id, String token);

    /**
     * The log so far, then new output as it is written ({@code ?follow=true}); the stream ends when
     * the sandbox is released. Closing it or interrupting its reader leaves.
     */
    java.io.InputStream follow(String id, String token);

    /** The logs of a real client. */
    static Logs of(SandboxdClient client) {
      return new Logs() {
        @Override
        public byte[] logs(String id, String token) {
          return client.logs(id, token);
        }

        @Override
        public java.io.InputStream follow(String id, String token) {
          return client.followLogs(id, token);
        }
      };
    }
  }

  /**
   * The memory figures of a sandbox ({@code GET /v1/sandboxes/{id}/stats}, operator), behind the
   * kubelet's {@code /stats/summary}.
   */
  @FunctionalInterface
  interface Stats {
    /** The sandbox's figures; sandboxd measures memory only (no CPU figure). */
    dev.runkora.api.SandboxStats stats(String id);

    /** The stats of a real client (its node token is the operator's). */
    static Stats of(SandboxdClient client) {
      return client::stats;
    }
  }

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

      @Override
      public java.time.Instant renew(String id, String token, long ttlSeconds) {
        return client.renew(id, token, ttlSeconds);
      }
    };
  }
}
