package dev.runkora.vk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.runkora.api.ClaimRequest;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class InventoryTest {
  final TestingSandboxd sandboxd = new TestingSandboxd();

  @Test
  void entriesComeFromTheListingNamedByClaimRefElseIdWithOwnAddressesOnly() {
    String mine = sandboxd.claim(ClaimRequest.of("host").withClaimRef("ns/mine")).id();
    String direct = sandboxd.claim(ClaimRequest.of("host").withClaimRef("other/direct")).id();
    String bare = sandboxd.claim(ClaimRequest.of("host")).id();
    Map<String, Object> o =
        Inventory.build(
            VkConfig.INVENTORY_GROUP,
            "node-a",
            "10.0.0.5:7777",
            sandboxd,
            Map.of(mine, "10.0.0.5:7777"),
            Instant.parse("2026-12-02T12:00:00Z"));
    assertThat(o)
        .containsEntry("apiVersion", "sandbox.cocoonstack.io/v1beta1")
        .containsEntry("kind", "NodeInventory")
        .containsEntry("node", "node-a")
        .containsEntry("address", "10.0.0.5:7777")
        .containsEntry("publishedAt", "2026-12-02T12:00:00Z");
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> entries = (List<Map<String, Object>>) o.get("entries");
    assertThat(entries)
        .extracting(e -> e.get("name"))
        .containsExactly("default/" + bare, "ns/mine", "other/direct");
    assertThat(entries.get(1))
        .containsEntry("id", mine)
        .containsEntry("phase", "Running")
        .containsEntry("addr", "10.0.0.5:7777")
        .containsEntry("template", "host");
    assertThat(entries.get(2)).doesNotContainKey("addr").containsEntry("id", direct);
  }

  @Test
  void theUpstreamGroupGetsTheOlderFieldSet() {
    sandboxd.claim(ClaimRequest.of("host").withClaimRef("ns/x"));
    Map<String, Object> o =
        Inventory.build(
            VkConfig.UPSTREAM_INVENTORY_GROUP, "n", "a:1", sandboxd, Map.of(), Instant.now());
    assertThat(o).containsEntry("apiVersion", "extensions.agents.x-k8s.io/v1beta1");
    assertThat(o).doesNotContainKey("publishedAt");
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> entries = (List<Map<String, Object>>) o.get("entries");
    assertThat(entries.getFirst()).doesNotContainKeys("template", "claimedAt", "deadline");
  }

  @Test
  void aFailedListingFailsTheWholeInventory() {
    sandboxd.listFails = true;
    assertThatThrownBy(
            () ->
                Inventory.build(
                    VkConfig.INVENTORY_GROUP, "n", "a:1", sandboxd, Map.of(), Instant.now()))
        .isInstanceOf(dev.runkora.api.ApiException.class);
  }
}
