package dev.runkora.vk;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class OwnersTest {

  @Test
  void pluralsFollowTheEnglishRulesNotANaiveS() {
    assertThat(Owners.plural("Sandbox")).isEqualTo("sandboxes");
    assertThat(Owners.plural("Policy")).isEqualTo("policies");
    assertThat(Owners.plural("ReplicaSet")).isEqualTo("replicasets");
    assertThat(Owners.plural("Gateway")).isEqualTo("gateways");
    assertThat(Owners.plural("Mesh")).isEqualTo("meshes");
    assertThat(Owners.plural("Ingress")).isEqualTo("ingresses");
  }

  @Test
  void theVerdictTable() {
    Owners.Reader alive = (g, v, p, ns, n) -> new Owners.Lookup.Found("u1", false);
    assertThat(Owners.decide("ns", null, null, null, null, false, alive).release()).isTrue();
    assertThat(
            Owners.decide("ns", "agents.x-k8s.io/v1", "Sandbox", "s", "u1", true, null).release())
        .isFalse();
    assertThat(Owners.decide("ns", "", "Sandbox", "s", "u1", true, alive).release()).isFalse();
    assertThat(Owners.decide("ns", "a/b/c", "Sandbox", "s", "u1", true, alive).release()).isFalse();
    assertThat(
            Owners.decide("ns", "agents.x-k8s.io/v1", "Sandbox", "s", "u1", true, alive).release())
        .isFalse();
    assertThat(
            Owners.decide("ns", "agents.x-k8s.io/v1", "Sandbox", "s", "u2", true, alive).release())
        .isTrue();
    Owners.Reader deleting = (g, v, p, ns, n) -> new Owners.Lookup.Found("u1", true);
    assertThat(Owners.decide("ns", "apps/v1", "ReplicaSet", "s", "u1", true, deleting).release())
        .isTrue();
    Owners.Reader gone = (g, v, p, ns, n) -> new Owners.Lookup.NotFound(n);
    assertThat(Owners.decide("ns", "apps/v1", "ReplicaSet", "s", "u1", true, gone).release())
        .isTrue();
    Owners.Reader endpoint404 = (g, v, p, ns, n) -> new Owners.Lookup.NotFound("");
    assertThat(Owners.decide("ns", "apps/v1", "ReplicaSet", "s", "u1", true, endpoint404).release())
        .isFalse();
    Owners.Reader forbidden = (g, v, p, ns, n) -> new Owners.Lookup.Failed("HTTP 403");
    assertThat(Owners.decide("ns", "apps/v1", "ReplicaSet", "s", "u1", true, forbidden).release())
        .isFalse();
    String[] asked = new String[4];
    Owners.Reader record =
        (g, v, p, ns, n) -> {
          asked[0] = g;
          asked[1] = v;
          asked[2] = p;
          asked[3] = ns;
          return new Owners.Lookup.Found("u1", false);
        };
    Owners.decide("team", "agents.x-k8s.io/v1alpha1", "Sandbox", "s", "u1", true, record);
    assertThat(asked).containsExactly("agents.x-k8s.io", "v1alpha1", "sandboxes", "team");
  }
}
