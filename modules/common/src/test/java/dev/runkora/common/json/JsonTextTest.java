package dev.runkora.common.json;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class JsonTextTest {

  @Test
  void quotedStringsParseBackToTheSameText() {
    for (String value :
        new String[] {"", "plain", "q\"uote", "back\\slash", "ctl\n\r\t\u0001\u001f", "ünï €"}) {
      String json = JsonText.quote(new StringBuilder("{\"v\":"), value).append('}').toString();
      assertThat(JsonText.parseObject(json).getString("v")).isEqualTo(value);
    }
  }
}
