package dev.runkora.vk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class VkConfigTest {

  @Test
  void defaultsAreThoseOfSeed001() {
    VkConfig c = VkConfig.parse(List.of(), Map.of());
    assertThat(c.nodeName()).isEqualTo("vk-sandboxd");
    assertThat(c.nodeIp()).isEmpty();
    assertThat(c.listenHost()).isEmpty();
    assertThat(c.listenPort()).isEqualTo(10260);
    assertThat(c.sandboxdUrl()).isEqualTo("http://127.0.0.1:7777");
    assertThat(c.sandboxdAdvertiseAddr()).isEqualTo("127.0.0.1:7777");
    assertThat(c.statePath()).isEqualTo(Path.of("/var/lib/vk-sandbox/claims.json"));
    assertThat(c.nodeCpu()).isEqualTo("4000");
    assertThat(c.nodeMemory()).isEqualTo("8Ti");
    assertThat(c.nodePods()).isEqualTo("2000");
    assertThat(c.kubeApiQps()).isEqualTo(200);
    assertThat(c.kubeApiBurst()).isEqualTo(400);
    assertThat(c.orphanScanInterval()).isEqualTo(Duration.ofSeconds(60));
    assertThat(c.publishInterval()).isEqualTo(Duration.ofSeconds(30));
    assertThat(c.publishInventory()).isFalse();
    assertThat(c.inventoryGroup()).isEqualTo("sandbox.cocoonstack.io");
    assertThat(c.anonymousAuth()).isFalse();
    assertThat(c.renewLeases()).isFalse();
    assertThat(c.allNodeLabels())
        .containsEntry("type", "virtual-kubelet")
        .containsEntry("sandbox.cocoonstack.io/runtime", "sandboxd")
        .containsEntry("kubernetes.io/role", "agent")
        .containsEntry("kubernetes.io/hostname", "vk-sandboxd");
  }

  @Test
  void environmentIsReadAndAFlagBeatsItsVariable() {
    Map<String, String> env =
        Map.of(
            "VK_NODE_NAME", "host-sandboxd",
            "VK_NODE_IP", "10.0.0.5",
            "VK_LISTEN_ADDR", "127.0.0.1:10270",
            "SANDBOXD_URL", "http://127.0.0.1:7000",
            "VK_STATE_PATH", "/tmp/x/claims.json",
            "SANDBOXD_TOKEN_FILE", "/etc/token");
    VkConfig fromEnv = VkConfig.parse(List.of(), env);
    assertThat(fromEnv.nodeName()).isEqualTo("host-sandboxd");
    assertThat(fromEnv.nodeIp()).isEqualTo("10.0.0.5");
    assertThat(fromEnv.listenHost()).isEqualTo("127.0.0.1");
    assertThat(fromEnv.listenPort()).isEqualTo(10270);
    assertThat(fromEnv.sandboxdAdvertiseAddr()).isEqualTo("127.0.0.1:7000");
    assertThat(fromEnv.sandboxdTokenFile()).isEqualTo("/etc/token");

    VkConfig flags =
        VkConfig.parse(
            List.of(
                "--node-name=flag-node",
                "--listen-addr",
                ":10280",
                "-state-path",
                "/tmp/y.json",
                "--publish-inventory",
                "--sandboxd-advertise-addr",
                "10.1.1.1:7777"),
            env);
    assertThat(flags.nodeName()).isEqualTo("flag-node");
    assertThat(flags.listenPort()).isEqualTo(10280);
    assertThat(flags.statePath()).isEqualTo(Path.of("/tmp/y.json"));
    assertThat(flags.publishInventory()).isTrue();
    assertThat(flags.sandboxdAdvertiseAddr()).isEqualTo("10.1.1.1:7777");
  }

  @Test
  void refusesAnEmptyStatePathSayingWhatToDo() {
    assertThatThrownBy(() -> VkConfig.parse(List.of("--state-path="), Map.of()))
        .isInstanceOf(VkConfig.Invalid.class)
        .hasMessageContaining("VK_STATE_PATH")
        .hasMessageContaining("directory this user can write");
    assertThatThrownBy(() -> VkConfig.parse(List.of(), Map.of("VK_STATE_PATH", "")))
        .isInstanceOf(VkConfig.Invalid.class);
  }

  @Test
  void rejectsBadValuesNamingTheFlag() {
    assertThatThrownBy(() -> VkConfig.parse(List.of("--listen-addr=:70000"), Map.of()))
        .hasMessageContaining("1-65535");
    assertThatThrownBy(() -> VkConfig.parse(List.of("--node-memory=lots"), Map.of()))
        .hasMessageContaining("--node-memory");
    assertThatThrownBy(() -> VkConfig.parse(List.of("--node-pods=0"), Map.of()))
        .hasMessageContaining("must not be zero");
    assertThatThrownBy(() -> VkConfig.parse(List.of("--orphan-scan-interval=soon"), Map.of()))
        .hasMessageContaining("duration");
    assertThatThrownBy(() -> VkConfig.parse(List.of("--no-such-flag"), Map.of()))
        .hasMessageContaining("unknown flag --no-such-flag");
    assertThatThrownBy(() -> VkConfig.parse(List.of("--inventory-group=example.com"), Map.of()))
        .hasMessageContaining("extensions.agents.x-k8s.io");
    assertThatThrownBy(() -> VkConfig.parse(List.of("--node-ip=not-an-ip"), Map.of()))
        .hasMessageContaining("VK_NODE_IP");
  }

  @Test
  void nodeLabelsMergeOverTheDefaultsAndTypeIsForced() {
    VkConfig c =
        VkConfig.parse(
            List.of("--node-labels", "pool=a, sandbox.cocoonstack.io/runtime=other,type=x"),
            Map.of());
    assertThat(c.allNodeLabels())
        .containsEntry("pool", "a")
        .containsEntry("sandbox.cocoonstack.io/runtime", "other")
        .containsEntry("type", "virtual-kubelet");
    assertThatThrownBy(() -> VkConfig.parse(List.of("--node-labels=novalue"), Map.of()))
        .hasMessageContaining("key=value");
  }

  @Test
  void goDurationsParse() {
    assertThat(VkConfig.parseDuration("x", "0")).isZero();
    assertThat(VkConfig.parseDuration("x", "1m30s")).isEqualTo(Duration.ofSeconds(90));
    assertThat(VkConfig.parseDuration("x", "250ms")).isEqualTo(Duration.ofMillis(250));
    assertThat(VkConfig.parse(List.of("--orphan-scan-interval=0"), Map.of()).orphanScanInterval())
        .isZero();
  }

  @Test
  void versionAndHelpAreActionsThatNeedNoValidConfiguration() {
    assertThat(VkConfig.action(List.of("--version"))).isEqualTo(VkConfig.Action.VERSION);
    assertThat(VkConfig.action(List.of("--help"))).isEqualTo(VkConfig.Action.HELP);
    assertThat(Version.line()).matches("vk-sandbox \\S+ \\(rev=\\S+ built=\\S+\\)");
    assertThat(VkConfig.help()).contains("--publish-inventory", "$VK_STATE_PATH");
  }
}
