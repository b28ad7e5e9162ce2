package dev.runkora.sandboxd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.runkora.sandboxd.engine.Claim;
import dev.runkora.sandboxd.engine.ClaimMount;
import dev.runkora.sandboxd.engine.ClaimStore;
import dev.runkora.sandboxd.engine.Ids;
import dev.runkora.sandboxd.engine.PoolKey;
import dev.runkora.spi.core.KoraException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** claims.json and its journal: what is committed survives a restart, and nothing else. */
class ClaimStoreTest {

  @TempDir Path data;

  private static Claim claim(String ref) {
    Instant now = Instant.parse("2026-01-02T03:04:05Z");
    return new Claim(
        Ids.sandboxId(),
        Ids.vmName(),
        PoolKey.of("host", "", ""),
        Ids.token(),
        now.plusSeconds(300),
        300,
        "",
        ref,
        now,
        Map.of("A", "b"),
        List.of());
  }

  @Test
  void commitsAppendToAPrivateJournalThatARestartFoldsIntoClaimsJson() throws Exception {
    var store = ClaimStore.load(data, false);
    var kept = claim("kept");
    var gone = claim("gone");
    store.commit(store.put(kept));
    store.commit(store.put(gone));
    var renewed = kept.renewed(kept.deadline().plusSeconds(60), 360);
    store.commit(store.replace(kept, renewed));
    store.commit(store.remove(gone));

    Path journal = data.resolve(ClaimStore.JOURNAL);
    assertThat(data.resolve(ClaimStore.FILE)).doesNotExist();
    assertThat(Files.readAllLines(journal)).hasSize(4);
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(journal)))
        .isEqualTo("rw-------");
    assertThat(ClaimStore.image(data).keySet()).containsExactly(kept.id());
    assertThat(ClaimStore.image(data).getJsonObject(kept.id()).getInt("lease_seconds"))
        .isEqualTo(360);

    var restarted = ClaimStore.load(data, false);
    assertThat(restarted.all()).containsExactly(renewed);
    assertThat(journal).doesNotExist();
    assertThat(Files.readString(data.resolve(ClaimStore.FILE))).contains(kept.id());
  }

  @Test
  void claimsWithEveryFieldSetReadBackEqual() throws Exception {
    var store = ClaimStore.load(data, false);
    var plain = claim("plain");
    var full =
        new Claim(
            Ids.sandboxId(),
            Ids.vmName(),
            PoolKey.of("registry.local:5000/img:1", "egress", "large"),
            Ids.token(),
            Instant.parse("2026-01-02T03:04:05.123456789Z"),
            86400,
            "acme",
            "ns/\"quoted\" \\ ünï\n",
            Instant.parse("2026-01-01T00:00:00Z"),
            Map.of("PATH", "/bin:/usr/bin", "TAB", "a\tb", "CTL", "\u0001"),
            List.of(
                new ClaimMount("/srv/a b", "/work", true, ""),
                new ClaimMount("/var/lib/ws/acme--w", "/ws", false, "w")));
    store.commit(store.put(plain));
    store.commit(store.put(full));
    assertThat(ClaimStore.load(data, false).all()).containsExactlyInAnyOrder(plain, full);
    assertThat(ClaimStore.load(data, false).all()).containsExactlyInAnyOrder(plain, full);
  }

  @Test
  void concurrentCommitsShareWritesAndLoseNothing() throws Exception {
    var store = ClaimStore.load(data, true);
    try (var workers = java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor()) {
      for (int i = 0; i < 200; i++) {
        int n = i;
        workers.submit(
            () -> {
              store.commit(store.put(claim("c" + n)));
              return null;
            });
      }
    }
    assertThat(ClaimStore.image(data)).hasSize(200);
    assertThat(Files.readAllLines(data.resolve(ClaimStore.JOURNAL))).hasSize(200);
  }

  @Test
  void aTornLastLineWasNeverCommittedAndIsIgnored() throws Exception {
    var store = ClaimStore.load(data, false);
    var kept = claim("kept");
    store.commit(store.put(kept));
    Files.writeString(
        data.resolve(ClaimStore.JOURNAL), "{\"put\":{\"id\":\"sb_", StandardOpenOption.APPEND);
    assertThat(ClaimStore.load(data, false).all()).containsExactly(kept);
  }

  @Test
  void aMalformedJournalLineStopsTheLoadAndNamesTheJournal() throws Exception {
    Files.writeString(data.resolve(ClaimStore.JOURNAL), "{\"put\":12}\n", StandardCharsets.UTF_8);
    assertThatThrownBy(() -> ClaimStore.load(data, false))
        .isInstanceOf(KoraException.class)
        .hasMessageContaining(data.resolve(ClaimStore.JOURNAL).toString())
        .hasMessageContaining("malformed");
  }

  @Test
  void afterAFailedWriteTheNextCommitRewritesTheWholeFile() throws Exception {
    var store = ClaimStore.load(data, false);
    var first = claim("first");
    store.commit(store.put(first));
    store.failWritesWith(new IOException("disk full"));
    var failed = claim("failed");
    long version = store.put(failed);
    assertThatThrownBy(() -> store.commit(version)).hasMessage("disk full");
    store.remove(failed);
    store.failWritesWith(null);
    var next = claim("next");
    store.commit(store.put(next));

    assertThat(data.resolve(ClaimStore.JOURNAL)).doesNotExist();
    assertThat(ClaimStore.image(data).keySet()).containsExactlyInAnyOrder(first.id(), next.id());
  }
}
