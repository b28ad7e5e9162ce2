package dev.runkora.vk;

import dev.runkora.api.ApiException;
import dev.runkora.api.Info;
import dev.runkora.api.PoolStatus;
import dev.runkora.api.SandboxRow;
import dev.runkora.common.json.Rfc3339;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The NodeInventory object of this node (reference §11): entries from {@code GET /v1/sandboxes}
 * (claims made directly by others included), pools from {@code GET /v1/info}, addresses from this
 * agent's own claims. Either read failing fails the whole build: never a partial inventory.
 */
final class Inventory {
  static final String KIND = "NodeInventory";
  static final String VERSION = "v1beta1";
  static final String PLURAL = "nodeinventories";

  private Inventory() {}

  /**
   * The object to apply.
   *
   * @throws ApiException when sandboxd cannot be read
   */
  static Map<String, Object> build(
      String group,
      String nodeName,
      String address,
      SandboxdPort sandboxd,
      Map<String, String> addressesById,
      Instant now) {
    List<SandboxRow> rows = sandboxd.list();
    Info info = sandboxd.info();
    boolean kora = group.equals(VkConfig.INVENTORY_GROUP);
    List<Map<String, Object>> entries = new ArrayList<>();
    for (SandboxRow r : rows) {
      String name = r.claimRef().isEmpty() ? r.id() : r.claimRef();
      if (!name.contains("/")) {
        name = "default/" + name;
      }
      Map<String, Object> e = new LinkedHashMap<>();
      e.put("name", name);
      e.put("id", r.id());
      e.put("phase", r.hibernated() ? "Hibernated" : "Running");
      e.put("claimRef", name);
      String addr = addressesById.get(r.id());
      if (addr != null && !addr.isEmpty()) {
        e.put("addr", addr);
      }
      if (kora) {
        if (!r.deadline().equals(Instant.EPOCH)) {
          e.put("deadline", Rfc3339.format(r.deadline()));
        }
        r.claimedAt().ifPresent(t -> e.put("claimedAt", Rfc3339.format(t)));
        e.put("template", r.key().template());
      }
      entries.add(e);
    }
    entries.sort(Comparator.comparing(m -> (String) m.get("name")));
    List<Map<String, Object>> pools = new ArrayList<>();
    for (PoolStatus p : info.pools()) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("template", p.key().template());
      m.put("net", p.key().net());
      m.put("size", p.key().size());
      m.put("warm", p.warm());
      m.put("target", p.target());
      pools.add(m);
    }
    Map<String, Object> o = new LinkedHashMap<>();
    o.put("apiVersion", group + "/" + VERSION);
    o.put("kind", KIND);
    o.put("metadata", Map.of("name", nodeName));
    o.put("node", nodeName);
    o.put("address", address);
    o.put("entries", entries);
    o.put("pools", pools);
    if (kora) {
      o.put("publishedAt", Rfc3339.format(now));
    }
    return o;
  }
}
