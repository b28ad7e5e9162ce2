package dev.runkora.vk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClaimsFileTest {
  @TempDir Path dir;

  static Claim claim(String id) {
    return new Claim(
        id,
        "tok-" + id,
        "10.0.0.5:7777",
        "uid-" + id,
        Instant.parse("2026-07-27T02:15:00Z"),
        Optional.of(Instant.parse("2026-07-28T02:15:00Z")));
  }

  @Test
  void roundTripsCompactWithMode0600() throws Exception {
    Path path = dir.resolve("state/claims.json");
    ClaimsFile file = new ClaimsFile(path);
    file.save(() -> Map.of("default/a", claim("sb_1")));
    assertThat(Files.getPosixFilePermissions(path))
        .isEqualTo(PosixFilePermissions.fromString("rw-------"));
    assertThat(Files.readString(path))
        .isEqualTo(
            "{\"claims\":{\"default/a\":{\"id\":\"sb_1\",\"token\":\"tok-sb_1\","
                + "\"address\":\"10.0.0.5:7777\",\"podUID\":\"uid-sb_1\","
                + "\"claimedAt\":\"2026-07-27T02:15:00Z\",\"deadline\":\"2026-07-28T02:15:00Z\"}}}");
    assertThat(new ClaimsFile(path).load()).containsEntry("default/a", claim("sb_1"));
  }

  @Test
  void anIndentedLegacyFileWithoutClaimedAtLoads() throws Exception {
    Path path = dir.resolve("claims.json");
    Files.writeString(
        path,
        "{\n  \"claims\": {\n    \"ns/p\": {\n      \"id\": \"sb_2\",\n      \"token\": \"t\"\n"
            + "    }\n  }\n}\n");
    Instant before = Instant.now().minusSeconds(1);
    Map<String, Claim> loaded = new ClaimsFile(path).load();
    assertThat(loaded.get("ns/p").id()).isEqualTo("sb_2");
    assertThat(loaded.get("ns/p").claimedAt()).isAfter(before);
    assertThat(loaded.get("ns/p").deadline()).isEmpty();
  }

  @Test
  void aMissingFileIsEmptyAndAMalformedOneIsFatal() throws Exception {
    assertThat(new ClaimsFile(dir.resolve("none.json")).load()).isEmpty();
    Path bad = dir.resolve("bad.json");
    Files.writeString(bad, "{\"claims\": [");
    assertThatThrownBy(() -> new ClaimsFile(bad).load())
        .hasMessageContaining("malformed")
        .hasMessageContaining("release credentials");
  }

  @Test
  void aDeletedDirectoryIsCreatedAgain() throws Exception {
    Path sub = dir.resolve("gone");
    ClaimsFile file = new ClaimsFile(sub.resolve("claims.json"));
    file.save(() -> Map.of("a/b", claim("sb_3")));
    Files.delete(sub.resolve("claims.json"));
    Files.delete(sub);
    file.save(() -> Map.of("a/b", claim("sb_3")));
    assertThat(file.load()).containsKey("a/b");
  }

  @Test
  void concurrentSavesNeverLoseAClaim() throws Exception {
    ClaimsFile file = new ClaimsFile(dir.resolve("claims.json"));
    Map<String, Claim> table = new ConcurrentHashMap<>();
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < 32; i++) {
      String key = "ns/p" + i;
      Claim c = claim("sb_" + i);
      threads.add(
          Thread.ofPlatform()
              .start(
                  () -> {
                    table.put(key, c);
                    try {
                      file.save(() -> new LinkedHashMap<>(table));
                    } catch (Exception e) {
                      throw new IllegalStateException(e);
                    }
                  }));
    }
    for (Thread t : threads) {
      t.join();
    }
    assertThat(file.load()).hasSize(32);
  }
}
