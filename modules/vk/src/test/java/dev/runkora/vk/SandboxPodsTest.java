package dev.runkora.vk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1OwnerReference;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.kubernetes.client.openapi.models.V1PodStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SandboxPodsTest {
  @TempDir Path dir;
  final TestingSandboxd sandboxd = new TestingSandboxd();
  final List<String> pushed = new ArrayList<>();
  final Map<String, Owners.Lookup> ownerAnswers = new HashMap<>();
  final Owners.Reader owners =
      (group, version, plural, ns, name) ->
          ownerAnswers.getOrDefault(plural + "/" + name, new Owners.Lookup.Failed("unknown"));

  SandboxPods provider(Path state) {
    SandboxPods p =
        new SandboxPods(sandboxd, new ClaimsFile(state), owners, pushed::add, Clock.systemUTC());
    p.start();
    return p;
  }

  /**
   * A provider on a sandboxd fake with no owners to look up (every owner lookup fails) and nobody
   * listening for status changes: for tests of the kubelet API in front of it.
   */
  static SandboxPods standalone(SandboxdPort sandboxd, Path claimsFile) {
    return new SandboxPods(
        sandboxd,
        new ClaimsFile(claimsFile),
        (group, version, plural, ns, name) -> new Owners.Lookup.Failed("none"),
        key -> {},
        Clock.systemUTC());
  }

  static V1Pod pod(String name, Map<String, String> annotations, V1OwnerReference owner) {
    V1ObjectMeta meta =
        new V1ObjectMeta()
            .namespace("ns")
            .name(name)
            .uid(UUID.randomUUID().toString())
            .annotations(annotations);
    if (owner != null) {
      meta.ownerReferences(List.of(owner));
    }
    return new V1Pod()
        .metadata(meta)
        .spec(new V1PodSpec().containers(List.of(new V1Container().name("agent").image("host"))))
        .status(new V1PodStatus().phase("Pending"));
  }

  static V1OwnerReference sandboxOwner(String name, String uid) {
    return new V1OwnerReference()
        .apiVersion("agents.x-k8s.io/v1alpha1")
        .kind("Sandbox")
        .name(name)
        .uid(uid)
        .controller(true);
  }

  @Test
  void aClaimCarriesThePodKeyAndTheContractAnnotations() {
    SandboxPods p = provider(dir.resolve("claims.json"));
    V1Pod pod =
        pod(
            "a",
            Map.of(
                "sandbox.cocoonstack.io/template", "base:24.04",
                "sandbox.cocoonstack.io/net", "egress",
                "sandbox.cocoonstack.io/size", "large"),
            null);
    p.createPod(pod);
    var request = sandboxd.claims.getFirst();
    assertThat(request.claimRef()).isEqualTo("ns/a");
    assertThat(request.template()).isEqualTo("base:24.04");
    assertThat(request.net()).isEqualTo("egress");
    assertThat(request.size()).isEqualTo("large");
    assertThat(request.ttlSeconds()).isEqualTo(86_400);
    assertThat(pushed).containsExactly("ns/a");
    V1PodStatus status = p.status("ns/a").orElseThrow();
    assertThat(status.getPhase()).isEqualTo("Running");
    assertThat(status.getPodIP()).isEqualTo("10.0.0.5");
    assertThat(status.getContainerStatuses().getFirst().getImageID())
        .isEqualTo("sandboxd://" + p.claimId("ns/a").orElseThrow());
    assertThat(p.table().get("ns/a").deadline()).isPresent();
  }

  @Test
  void withoutATemplateTheFirstContainersImageIsUsed() {
    SandboxPods p = provider(dir.resolve("claims.json"));
    p.createPod(pod("a", Map.of(), null));
    assertThat(sandboxd.claims.getFirst().template()).isEqualTo("host");
  }

  @Test
  void contractViolationsNeverClaim() {
    SandboxPods p = provider(dir.resolve("claims.json"));
    assertThatThrownBy(
            () -> p.createPod(pod("a", Map.of("sandbox.cocoonstack.io/runtime", "standard"), null)))
        .hasMessage("pod ns/a requests runtime \"standard\"; this node serves \"sandboxd\"");
    assertThatThrownBy(
            () -> p.createPod(pod("b", Map.of("sandbox.cocoonstack.io/ttl-seconds", "-1"), null)))
        .hasMessage("pod ns/b: invalid sandbox.cocoonstack.io/ttl-seconds=\"-1\"");
    assertThat(sandboxd.claims).isEmpty();
  }

  @Test
  void aRefusedClaimIsAnErrorAndLeavesNothing() {
    SandboxPods p = provider(dir.resolve("claims.json"));
    sandboxd.claimStatus = 429;
    assertThatThrownBy(() -> p.createPod(pod("a", Map.of(), null)))
        .hasMessageContaining("no warm capacity");
    assertThat(p.table()).isEmpty();
    assertThat(p.status("ns/a")).isEmpty();
  }

  @Test
  void deletingABarePodReleasesItsSandbox() throws Exception {
    Path state = dir.resolve("claims.json");
    SandboxPods p = provider(state);
    V1Pod pod = pod("a", Map.of(), null);
    p.createPod(pod);
    String id = p.claimId("ns/a").orElseThrow();
    assertThat(p.deletePod(pod)).isTrue();
    assertThat(sandboxd.releases).containsExactly(id);
    assertThat(p.table()).isEmpty();
    assertThat(Files.readString(state)).doesNotContain(id);
  }

  @Test
  void aLiveOwnerPreservesTheClaimAndTheReplacementAdoptsIt() {
    SandboxPods p = provider(dir.resolve("claims.json"));
    ownerAnswers.put("sandboxes/sb", new Owners.Lookup.Found("owner-uid", false));
    V1Pod first = pod("a", Map.of(), sandboxOwner("sb", "owner-uid"));
    p.createPod(first);
    String id = p.claimId("ns/a").orElseThrow();
    p.deletePod(first);
    assertThat(sandboxd.releases).isEmpty();
    V1Pod replacement = pod("a", Map.of(), sandboxOwner("sb", "owner-uid"));
    p.createPod(replacement);
    assertThat(sandboxd.claims).hasSize(1);
    assertThat(p.claimId("ns/a")).contains(id);
    assertThat(p.table().get("ns/a").podUid()).isEqualTo(replacement.getMetadata().getUid());
    // The owner goes: the next delete releases.
    ownerAnswers.put("sandboxes/sb", new Owners.Lookup.NotFound("sb"));
    p.deletePod(replacement);
    assertThat(sandboxd.releases).containsExactly(id);
  }

  @Test
  void anEndpointLevel404PreservesAndADeletingOwnerReleases() {
    SandboxPods p = provider(dir.resolve("claims.json"));
    ownerAnswers.put("sandboxes/sb", new Owners.Lookup.NotFound(""));
    V1Pod pod = pod("a", Map.of(), sandboxOwner("sb", "u1"));
    p.createPod(pod);
    p.deletePod(pod);
    assertThat(sandboxd.releases).isEmpty();
    ownerAnswers.put("sandboxes/sb", new Owners.Lookup.Found("u1", true));
    V1Pod again = pod("a", Map.of(), sandboxOwner("sb", "u1"));
    p.createPod(again);
    p.deletePod(again);
    assertThat(sandboxd.releases).hasSize(1);
  }

  @Test
  void aDeleteCarryingAStaleUidIsIgnored() {
    SandboxPods p = provider(dir.resolve("claims.json"));
    V1Pod pod = pod("a", Map.of(), null);
    p.createPod(pod);
    V1Pod stale = pod("a", Map.of(), null);
    assertThat(p.deletePod(stale)).isFalse();
    assertThat(sandboxd.releases).isEmpty();
    assertThat(p.claimId("ns/a")).isPresent();
  }

  @Test
  void claimsSurviveARestartAndTheSamePodIsAdoptedWithoutASecondClaim() {
    Path state = dir.resolve("claims.json");
    SandboxPods first = provider(state);
    V1Pod pod = pod("a", Map.of(), null);
    first.createPod(pod);
    String id = first.claimId("ns/a").orElseThrow();
    SandboxPods second = provider(state);
    assertThat(second.isQuarantined("ns/a")).isFalse();
    second.createPod(pod);
    assertThat(sandboxd.claims).hasSize(1);
    assertThat(second.claimId("ns/a")).contains(id);
    assertThat(second.status("ns/a").orElseThrow().getStartTime())
        .isEqualTo(first.status("ns/a").orElseThrow().getStartTime());
  }

  @Test
  void aFailedListingAtStartKeepsTheRowsQuarantinedAndRefusesToClaimOverThem() {
    Path state = dir.resolve("claims.json");
    SandboxPods first = provider(state);
    V1Pod pod = pod("a", Map.of(), null);
    first.createPod(pod);
    sandboxd.listFails = true;
    SandboxPods second = provider(state);
    assertThat(second.isQuarantined("ns/a")).isTrue();
    assertThat(second.table()).containsKey("ns/a");
    assertThatThrownBy(() -> second.createPod(pod)).hasMessageContaining("unverified");
    assertThat(sandboxd.claims).hasSize(1);
    sandboxd.listFails = false;
    second.createPod(pod);
    assertThat(sandboxd.claims).hasSize(1);
    assertThat(second.status("ns/a").orElseThrow().getPhase()).isEqualTo("Running");
  }

  @Test
  void startUpDropsRowsTheNodeNoLongerHolds() {
    Path state = dir.resolve("claims.json");
    SandboxPods first = provider(state);
    first.createPod(pod("a", Map.of(), null));
    sandboxd.reap(first.claimId("ns/a").orElseThrow());
    SandboxPods second = provider(state);
    assertThat(second.table()).isEmpty();
  }

  @Test
  void anUnwritableStatePathIsRefusedAtStart() throws Exception {
    Path blocker = dir.resolve("file");
    Files.writeString(blocker, "x");
    assertThatThrownBy(() -> provider(blocker.resolve("claims.json")))
        .hasMessageContaining("claims state is not writable");
  }

  @Test
  void theLeaseWatchPublishesFailedOnlyAfterTheListingConfirms() {
    Instant[] now = {Instant.now()};
    Clock clock =
        new Clock() {
          @Override
          public ZoneOffset getZone() {
            return ZoneOffset.UTC;
          }

          @Override
          public Clock withZone(java.time.ZoneId zone) {
            return this;
          }

          @Override
          public Instant instant() {
            return now[0];
          }
        };
    SandboxPods p =
        new SandboxPods(
            sandboxd, new ClaimsFile(dir.resolve("c.json")), owners, pushed::add, clock);
    p.start();
    p.createPod(pod("a", Map.of("sandbox.cocoonstack.io/ttl-seconds", "60"), null));
    pushed.clear();
    now[0] = now[0].plusSeconds(120);
    sandboxd.listFails = true;
    p.leaseWatch();
    assertThat(pushed).isEmpty();
    sandboxd.listFails = false;
    p.leaseWatch(); // still listed: the deadline is refreshed, nothing published
    assertThat(pushed).isEmpty();
    // The listing still holds it with the old deadline; once it is gone, Failed is pushed.
    p.table().values().forEach(c -> sandboxd.reap(c.id()));
    now[0] = now[0].plusSeconds(400);
    p.leaseWatch();
    assertThat(pushed).containsExactly("ns/a");
    var status = p.status("ns/a").orElseThrow();
    assertThat(status.getPhase()).isEqualTo("Failed");
    assertThat(status.getReason()).isEqualTo("SandboxLeaseExpired");
    assertThat(status.getPodIP()).isNull();
  }

  static final class ManualClock extends Clock {
    Instant now = Instant.now();

    @Override
    public ZoneOffset getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return now;
    }
  }

  @Test
  void theOwnerRecheckReleasesAPreservedClaimOnceItsOwnerIsGoneAcrossARestart() {
    ManualClock clock = new ManualClock();
    Path state = dir.resolve("claims.json");
    SandboxPods p = new SandboxPods(sandboxd, new ClaimsFile(state), owners, pushed::add, clock);
    p.start();
    ownerAnswers.put("sandboxes/sb", new Owners.Lookup.Found("u1", false));
    V1Pod pod = pod("a", Map.of(), sandboxOwner("sb", "u1"));
    p.createPod(pod);
    String id = p.claimId("ns/a").orElseThrow();
    p.deletePod(pod);
    clock.now = clock.now.plusSeconds(11);
    p.recheckOwners();
    assertThat(sandboxd.releases).isEmpty();
    // A restart keeps the recorded owner; the owner goes; the next due re-check releases.
    SandboxPods restarted =
        new SandboxPods(sandboxd, new ClaimsFile(state), owners, pushed::add, clock);
    restarted.start();
    assertThat(restarted.table().get("ns/a").owner()).isPresent();
    ownerAnswers.put("sandboxes/sb", new Owners.Lookup.NotFound("sb"));
    restarted.recheckOwners();
    assertThat(sandboxd.releases).isEmpty(); // not due yet
    clock.now = clock.now.plusSeconds(11);
    restarted.recheckOwners();
    assertThat(sandboxd.releases).containsExactly(id);
    assertThat(restarted.table()).isEmpty();
  }

  @Test
  void leaseRenewalRenewsALivePodsLeaseInItsSecondHalfOnly() {
    ManualClock clock = new ManualClock();
    sandboxd.renewClock = clock;
    SandboxPods p =
        new SandboxPods(
            sandboxd, new ClaimsFile(dir.resolve("c.json")), owners, pushed::add, clock);
    p.start();
    p.createPod(pod("a", Map.of("sandbox.cocoonstack.io/ttl-seconds", "100"), null));
    Instant first = p.table().get("ns/a").deadline().orElseThrow();
    clock.now = clock.now.plusSeconds(20);
    p.renewLeases();
    assertThat(sandboxd.renewals).isEmpty();
    clock.now = clock.now.plusSeconds(40);
    p.renewLeases();
    assertThat(sandboxd.renewals).hasSize(1);
    assertThat(p.table().get("ns/a").deadline().orElseThrow()).isAfter(first);
    assertThat(p.status("ns/a").orElseThrow().getPhase()).isEqualTo("Running");
  }

  @Test
  void anAdoptingReplacementEndsTheOwnerRecheck() {
    ManualClock clock = new ManualClock();
    SandboxPods p =
        new SandboxPods(
            sandboxd, new ClaimsFile(dir.resolve("c.json")), owners, pushed::add, clock);
    p.start();
    ownerAnswers.put("sandboxes/sb", new Owners.Lookup.Found("u1", false));
    V1Pod pod = pod("a", Map.of(), sandboxOwner("sb", "u1"));
    p.createPod(pod);
    p.deletePod(pod);
    p.createPod(pod("a", Map.of(), sandboxOwner("sb", "u1")));
    ownerAnswers.put("sandboxes/sb", new Owners.Lookup.NotFound("sb"));
    clock.now = clock.now.plusSeconds(3600);
    p.recheckOwners();
    assertThat(sandboxd.releases).isEmpty();
  }

  @Test
  void theOrphanScanOnlyReports() {
    SandboxPods p = provider(dir.resolve("claims.json"));
    p.createPod(pod("a", Map.of(), null));
    sandboxd.claim(dev.runkora.api.ClaimRequest.of("host").withClaimRef("other/x"));
    sandboxd.claim(dev.runkora.api.ClaimRequest.of("host"));
    int before = sandboxd.live.size();
    p.orphanScan();
    assertThat(p.orphanVerdicts().values()).containsExactlyInAnyOrder("external", "orphan");
    assertThat(sandboxd.live).hasSize(before);
    sandboxd.listFails = true;
    p.orphanScan();
    assertThat(p.orphanVerdicts()).hasSize(2);
    assertThat(Optional.of(sandboxd.releases)).contains(List.of());
  }
}
