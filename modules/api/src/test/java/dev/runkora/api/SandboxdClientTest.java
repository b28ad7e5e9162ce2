package dev.runkora.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;

class SandboxdClientTest {

  @Test
  void addressesAreNormalized() {
    assertThat(SandboxdClient.normalize("127.0.0.1:7777").toString())
        .isEqualTo("http://127.0.0.1:7777/");
    assertThat(SandboxdClient.normalize(":7777").toString()).isEqualTo("http://127.0.0.1:7777/");
    assertThat(SandboxdClient.normalize("http://node:7777/prefix").toString())
        .isEqualTo("http://node:7777/prefix/");
  }

  @Test
  void addressesWithCredentialsOrOtherSchemesAreRejected() {
    assertThatThrownBy(() -> SandboxdClient.normalize("http://user:pw@node:7777"))
        .hasMessageNotContaining("pw");
    assertThatThrownBy(() -> SandboxdClient.normalize("ftp://node")).hasMessageContaining("http");
    assertThatThrownBy(() -> SandboxdClient.normalize(" ")).hasMessageContaining("empty");
  }

  @Test
  void errorBodiesBecomeTheErrorMessage() {
    ApiException e = SandboxdClient.error(429, "{\"error\":\"node draining\"}");

    assertThat(e.status()).isEqualTo(429);
    assertThat(e.error()).isEqualTo("node draining");
    assertThat(e.isNotFound()).isFalse();
  }

  @Test
  void nonJsonErrorBodiesAreKeptShort() {
    ApiException e = SandboxdClient.error(502, "x".repeat(1000));

    assertThat(e.error()).hasSizeLessThan(210);
    assertThat(SandboxdClient.error(404, "").error()).isEqualTo("HTTP 404");
    assertThat(SandboxdClient.error(404, "").isNotFound()).isTrue();
  }

  @Test
  void aDaemonThatIsNotRunningIsUnreachableAndTheTokenStaysOutOfTheMessage() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    try (SandboxdClient client =
        SandboxdClient.builder("127.0.0.1:" + port).token("root-secret-token").build()) {
      assertThat(client.isHealthy()).isFalse();
      assertThatThrownBy(client::info)
          .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.isUnreachable()).isTrue())
          .hasMessageNotContaining("root-secret-token");
    }
  }

  @Test
  void sandboxIdsCannotEscapeTheirPath() {
    try (SandboxdClient client = SandboxdClient.builder("127.0.0.1:1").build()) {
      assertThatThrownBy(() -> client.release("../info", "t"))
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void execFramesAreDispatchedInOrderUntilExit() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    ExecOutput output = ExecOutput.to(out, err);
    String hello = Base64.getEncoder().encodeToString("hello\n".getBytes(StandardCharsets.UTF_8));

    assertThat(
            SandboxdClient.ExecFrames.dispatch(
                Wire.parseObject("{\"stream\":\"stdout\",\"data\":\"" + hello + "\"}"), output))
        .isEmpty();
    assertThat(
            SandboxdClient.ExecFrames.dispatch(
                Wire.parseObject("{\"stream\":\"stderr\",\"data\":\"\"}"), output))
        .isEmpty();
    assertThat(
            SandboxdClient.ExecFrames.dispatch(
                Wire.parseObject("{\"exit_code\":7,\"timed_out\":false}"), output))
        .contains(7);
    assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo("hello\n");
    assertThat(err.size()).isZero();
  }

  @Test
  void aTimedOutExitFrameIsReported() {
    boolean[] timedOut = {false};
    ExecOutput output =
        new ExecOutput() {
          @Override
          public void stdout(byte[] data) {}

          @Override
          public void stderr(byte[] data) {}

          @Override
          public void timedOut() {
            timedOut[0] = true;
          }
        };

    assertThat(
            SandboxdClient.ExecFrames.dispatch(
                Wire.parseObject("{\"exit_code\":137,\"timed_out\":true}"), output))
        .contains(137);
    assertThat(timedOut[0]).isTrue();
  }

  @Test
  void anErrorFrameBecomesAnApiException() {
    ExecOutput output = ExecOutput.to(new ByteArrayOutputStream(), new ByteArrayOutputStream());

    assertThatThrownBy(
            () ->
                SandboxdClient.ExecFrames.dispatch(
                    Wire.parseObject("{\"error\":\"agent gone\"}"), output))
        .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.status()).isEqualTo(502))
        .hasMessageContaining("agent gone");
  }
}
