package dev.runkora.sandboxd;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import org.junit.jupiter.api.Test;

class AuthAndBadInputTest extends DaemonFixture {

  private String stateBefore() throws Exception {
    return dev.runkora.sandboxd.engine.ClaimStore.image(temp.resolve("data")).toString()
        + daemon.info().claimed()
        + runtime.boxes.keySet();
  }

  @Test
  void nodeEndpointsNeedAValidTokenAndOperatorOnesTheRootToken() throws Exception {
    startWarm(1);
    var missing = api.get("/v1/info", null);
    assertThat(missing.status()).isEqualTo(401);
    assertThat(missing.error()).isEqualTo("invalid api token");
    assertThat(api.get("/v1/info", "nope").status()).isEqualTo(401);
    assertThat(claim("nope", "{\"template\":\"host\"}").status()).isEqualTo(401);
    for (String path : new String[] {"/v1/info", "/metrics"}) {
      var tenant = api.get(path, TENANT);
      assertThat(tenant.status()).isEqualTo(403);
      assertThat(tenant.error()).isEqualTo("operator token required");
    }
    assertThat(api.post("/v1/drain", TENANT, null).status()).isEqualTo(403);
    assertThat(api.send("PUT", "/v1/pools", TENANT, "{\"pools\":[]}").status()).isEqualTo(403);
    assertThat(api.get("/healthz", null).body()).isEqualTo("ok");
  }

  @Test
  void sandboxVerbsAnswer404ForWrongTokensTenantTokensAndUnknownIds() throws Exception {
    startWarm(2);
    var a = claim(ROOT, "{\"template\":\"host\"}").json();
    var b = claim(TENANT, "{\"template\":\"host\"}").json();
    String pathA = "/v1/sandboxes/" + a.getString("id");
    assertThat(api.post(pathA + "/release", null, null).status()).isEqualTo(401);
    for (String token : new String[] {b.getString("token"), TENANT, "x"}) {
      var reply = api.post(pathA + "/renew", token, null);
      assertThat(reply.status()).isEqualTo(404);
      assertThat(reply.error()).isEqualTo("unknown sandbox");
    }
    assertThat(api.post("/v1/sandboxes/sb_0000000000000000/release", ROOT, null).status())
        .isEqualTo(404);
    // Root acts by id on release and renew, never on exec or owner.
    assertThat(api.post(pathA + "/exec", ROOT, "{\"argv\":[\"true\"]}").status()).isEqualTo(404);
    assertThat(api.get(pathA + "/owner", ROOT).status()).isEqualTo(404);
    assertThat(api.post(pathA + "/renew", ROOT, null).status()).isEqualTo(200);
    // Stats and get by id are operator endpoints.
    assertThat(api.get(pathA + "/stats", TENANT).status()).isEqualTo(403);
    assertThat(api.get(pathA, a.getString("token")).status()).isEqualTo(401);
    assertThat(api.get("/v1/sandboxes/sb_0000000000000000", ROOT).status()).isEqualTo(404);
    assertThat(api.post(pathA + "/release", ROOT, null).status()).isEqualTo(204);
  }

  @Test
  void badClaimBodiesAnswer400AndChangeNothing() throws Exception {
    startWarm(1);
    String before = stateBefore();
    String[][] cases = {
      {"{\"template\":", "invalid request body"},
      {"[1,2]", "invalid request body"},
      {"{\"template\":\"host\",\"size\":\"huge\"}", "unknown size"},
      {"{\"template\":\"host\",\"size\":\"4cpu\"}", "unknown size"},
      {"{\"template\":\"host\",\"net\":\"bridge\"}", "unknown net"},
      {"{\"template\":\"-bad\"}", "invalid template"},
      {"{\"template\":\"a b\"}", "invalid template"},
      {"{\"template\":\"" + "a".repeat(64) + "\"}", "invalid template"},
      {"{}", "template is required"},
      {"{\"template\":\"host\",\"ttl_seconds\":\"5\"}", "ttl_seconds"},
      {"{\"template\":\"host\",\"ttl_seconds\":-1}", "ttl_seconds"},
      {"{\"template\":\"host\",\"env\":{\"A B\":\"x\"}}", "env name"},
      {
        "{\"template\":\"host\",\"mounts\":[{\"host_path\":\"/tmp\",\"path\":\"rel\"}]}",
        "mount path"
      },
    };
    for (String[] c : cases) {
      var reply = claim(ROOT, c[0]);
      assertThat(reply.status()).as(c[0]).isEqualTo(400);
      assertThat(reply.error()).as(c[0]).contains(c[1]);
    }
    assertThat(stateBefore()).isEqualTo(before);
  }

  @Test
  void unknownClaimFieldsAreIgnoredButStrictBodiesRejectThem() throws Exception {
    startWarm(1);
    assertThat(claim(ROOT, "{\"template\":\"host\",\"future\":1}").status()).isEqualTo(200);
    var json = claim(ROOT, "{\"template\":\"host\"}").json();
    String exec = "/v1/sandboxes/" + json.getString("id") + "/exec";
    String token = json.getString("token");
    var unknown = api.post(exec, token, "{\"argv\":[\"true\"],\"tty\":true}");
    assertThat(unknown.status()).isEqualTo(400);
    assertThat(unknown.error()).contains("unknown field \"tty\"");
    assertThat(api.post(exec, token, "{\"argv\":[]}").status()).isEqualTo(400);
    assertThat(api.post(exec, token, "{\"argv\":[\"true\"],\"timeout_seconds\":-1}").status())
        .isEqualTo(400);
    String before = stateBefore();
    var pools =
        api.send("PUT", "/v1/pools", ROOT, "{\"pools\":[{\"template\":\"host\",\"egress\":true}]}");
    assertThat(pools.status()).isEqualTo(400);
    assertThat(api.send("PUT", "/v1/pools", ROOT, "{\"pools\":[],\"x\":1}").status())
        .isEqualTo(400);
    assertThat(
            api.send(
                    "PUT",
                    "/v1/pools",
                    ROOT,
                    "{\"pools\":[{\"template\":\"host\",\"warm\":4,\"warm_max\":2}]}")
                .status())
        .isEqualTo(400);
    assertThat(
            api.send(
                    "PUT",
                    "/v1/pools",
                    ROOT,
                    "{\"pools\":[{\"template\":\"host\"},{\"template\":\"host\",\"net\":\"none\"}]}")
                .status())
        .isEqualTo(400);
    assertThat(
            api.send("PUT", "/v1/pools", ROOT, "{\"pools\":[{\"template\":\"host\",\"warm\":-1}]}")
                .status())
        .isEqualTo(400);
    assertThat(Files.exists(temp.resolve("data/pools.json"))).isFalse();
    assertThat(stateBefore()).isEqualTo(before);
  }

  @Test
  void bodiesOverOneMebibyteAreRejected() throws Exception {
    startWarm(1);
    String before = stateBefore();
    String big = "{\"template\":\"host\",\"claim_ref\":\"" + "x".repeat(1 << 20) + "\"}";
    var reply = claim(ROOT, big);
    assertThat(reply.status()).isEqualTo(400);
    assertThat(reply.error()).isEqualTo("invalid request body");
    assertThat(stateBefore()).isEqualTo(before);
  }

  @Test
  void egressOnANodeWithoutItIs409AndUnknownTemplatesAre404() throws Exception {
    startWarm(1);
    var egress = claim(ROOT, "{\"template\":\"host\",\"net\":\"egress\"}");
    assertThat(egress.status()).isEqualTo(409);
    var missing = claim(ROOT, "{\"template\":\"test/missing\"}");
    assertThat(missing.status()).isEqualTo(404);
    var unserved = claim(ROOT, "{\"template\":\"nobody/serves\"}");
    assertThat(unserved.status()).isEqualTo(404);
    assertThat(daemon.info().claimed()).isZero();
  }

  @Test
  void unknownRoutesAndAdvancedEndpointsAnswer404WithAnErrorBody() throws Exception {
    startWarm(1);
    var id = claim(ROOT, "{\"template\":\"host\"}").json().getString("id");
    for (String path :
        new String[] {
          "/nope",
          "/v1/sandboxes/" + id + "/fork",
          "/v1/sandboxes/" + id + "/hibernate",
          "/v1/checkpoints",
          "/v1/peers"
        }) {
      var reply = api.post(path, ROOT, "{}");
      assertThat(reply.status()).as(path).isEqualTo(404);
      assertThat(reply.error()).isNotEmpty();
    }
    assertThat(api.get("/v1/volumes", ROOT).status()).isEqualTo(404);
  }

  @Test
  void openModeTreatsNodeCallersAsRootButSandboxVerbsStillNeedTheirToken() throws Exception {
    var open =
        new SandboxdConfig(
            "127.0.0.1",
            0,
            "",
            temp.resolve("data"),
            "",
            java.util.Optional.empty(),
            java.util.List.of(),
            0,
            2,
            false,
            java.util.List.of(new SandboxdConfig.Pool("host", "none", "small", 1, 0)),
            "testing",
            java.util.Map.of(),
            SandboxdConfig.Registry.defaults(),
            "testing",
            "");
    start(open);
    awaitWarm(1);
    assertThat(api.get("/v1/info", null).status()).isEqualTo(200);
    var json = claim(null, "{\"template\":\"host\"}").json();
    String path = "/v1/sandboxes/" + json.getString("id");
    assertThat(api.post(path + "/release", null, null).status()).isEqualTo(401);
    assertThat(api.post(path + "/release", "anything", null).status()).isEqualTo(404);
    assertThat(api.get(path, null).json().containsKey("token")).isFalse();
    assertThat(api.post(path + "/release", json.getString("token"), null).status()).isEqualTo(204);
  }
}
