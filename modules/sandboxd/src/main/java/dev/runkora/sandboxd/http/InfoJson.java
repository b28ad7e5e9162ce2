package dev.runkora.sandboxd.http;

import dev.runkora.common.json.JsonText;
import dev.runkora.common.json.Rfc3339;
import dev.runkora.sandboxd.engine.Claim;
import dev.runkora.sandboxd.engine.PoolManager;
import jakarta.json.JsonObject;
import java.util.List;

/** The JSON shapes of info (§4.8) and of listing rows (§4.5). */
final class InfoJson {

  private InfoJson() {}

  static JsonObject info(Node node) {
    var pools = JsonText.array();
    String atCapacity = "";
    List<PoolManager.PoolView> views = node.pools().view();
    for (var view : views) {
      pools.add(
          JsonText.object()
              .add("key", view.key().toJson())
              .add("warm", view.warm())
              .add("refilling", view.refilling())
              .add("target", view.target())
              .add("golden", view.golden()));
      if (atCapacity.isEmpty() && !view.atCapacity().isEmpty()) {
        atCapacity = view.atCapacity();
      }
    }
    var info =
        JsonText.object()
            .add("pools", pools)
            .add("claimed", node.store().size())
            .add("hibernated", 0)
            .add("archived", 0);
    if (node.admission().draining()) {
      info.add("draining", true);
    }
    if (!atCapacity.isEmpty()) {
      info.add("at_capacity", true).add("at_capacity_reason", atCapacity);
    }
    return info.build();
  }

  static JsonObject row(Claim claim, boolean withToken) {
    var row =
        JsonText.object()
            .add("id", claim.id())
            .add("key", claim.key().toJson())
            .add("deadline", Rfc3339.format(claim.deadline()))
            .add("claimed_at", Rfc3339.format(claim.claimedAt()))
            .add("hibernated", false);
    if (!claim.claimRef().isEmpty()) {
      row.add("claim_ref", claim.claimRef());
    }
    if (withToken) {
      row.add("token", claim.token());
    }
    return row.build();
  }
}
