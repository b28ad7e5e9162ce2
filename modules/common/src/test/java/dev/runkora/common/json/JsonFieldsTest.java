package dev.runkora.common.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Set;
import org.junit.jupiter.api.Test;

class JsonFieldsTest {

  @Test
  void strictObjectNamesTheUnknownField() {
    var fields = JsonFields.of(JsonText.parseObject("{\"argv\":[\"x\"],\"bogus\":1}"));
    assertThatThrownBy(() -> fields.requireOnly(Set.of("argv")))
        .isInstanceOf(JsonFormatError.class)
        .hasMessage("unknown field \"bogus\"");
  }

  @Test
  void wrongTypesAreRejectedWithTheFieldName() {
    var fields = JsonFields.of(JsonText.parseObject("{\"ttl_seconds\":\"5\",\"f\":1.5}"));
    assertThatThrownBy(() -> fields.longValue("ttl_seconds", 0))
        .hasMessageContaining("ttl_seconds")
        .hasMessageContaining("whole number");
    assertThatThrownBy(() -> fields.longValue("f", 0)).hasMessageContaining("whole number");
  }

  @Test
  void nullCountsAsAbsent() {
    var fields = JsonFields.of(JsonText.parseObject("{\"net\":null}"));
    assertThat(fields.string("net", "none")).isEqualTo("none");
  }

  @Test
  void malformedTextAndNonObjectsAreFormatErrors() {
    assertThatThrownBy(() -> JsonText.parseObject("{\"a\":".getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(JsonFormatError.class);
    assertThatThrownBy(() -> JsonText.parseObject("[1]".getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(JsonFormatError.class)
        .hasMessageContaining("array");
    assertThatThrownBy(() -> JsonText.parseObject("{} {}".getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(JsonFormatError.class);
  }

  @Test
  void rfc3339AcceptsFractionsAndPrintsWholeSeconds() {
    Instant t = Rfc3339.parse("2026-07-06T00:05:00.123456Z");
    assertThat(Rfc3339.format(t)).isEqualTo("2026-07-06T00:05:00Z");
    assertThat(Rfc3339.parse("2026-07-06T02:05:00+02:00"))
        .isEqualTo(Rfc3339.parse("2026-07-06T00:05:00Z"));
  }
}
