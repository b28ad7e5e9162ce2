package dev.runkora.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ArgsTest {
  private static final Args.Spec RUN =
      new Args.Spec(Set.of("template", "env", "ttl"), Set.of("json"), 0);
  private static final Args.Spec EXEC = new Args.Spec(Set.of("token"), Set.of("json"), 1);
  private static final Args.Spec PLAIN = new Args.Spec(Set.of("ref"), Set.of("json"), -1);

  @Test
  void optionsTakeTheirValueFromTheNextArgumentOrAfterAnEqualsSign() {
    Args a = Args.parse(List.of("--template", "host", "--ttl=60", "--json"), RUN);

    assertThat(a.value("template")).contains("host");
    assertThat(a.number("ttl", 0, 0, 100)).isEqualTo(60);
    assertThat(a.flag("json")).isTrue();
  }

  @Test
  void everythingAfterTheDoubleDashIsTheCommandEvenWhenItLooksLikeAnOption() {
    Args a = Args.parse(List.of("--template", "host", "--", "ls", "--json", "-l"), RUN);

    assertThat(a.command()).containsExactly("ls", "--json", "-l");
    assertThat(a.flag("json")).isFalse();
  }

  @Test
  void theCommandAlsoStartsAtTheFirstPositionalBeyondTheExpectedOnes() {
    Args run = Args.parse(List.of("echo", "--json", "hi"), RUN);
    Args exec = Args.parse(List.of("--token", "t", "sb_1", "echo", "hi"), EXEC);

    assertThat(run.command()).containsExactly("echo", "--json", "hi");
    assertThat(exec.positionals()).containsExactly("sb_1");
    assertThat(exec.command()).containsExactly("echo", "hi");
    assertThat(exec.value("token")).contains("t");
  }

  @Test
  void repeatedOptionsKeepEveryValueInOrder() {
    Args a = Args.parse(List.of("--env", "A=1", "--env", "B=x=y", "--", "true"), RUN);

    assertThat(a.pairs("env"))
        .containsExactly(java.util.Map.entry("A", "1"), java.util.Map.entry("B", "x=y"));
  }

  @Test
  void unknownOptionsAndMissingValuesAreUsageErrors() {
    assertThatThrownBy(() -> Args.parse(List.of("--nope"), RUN))
        .isInstanceOf(UsageException.class)
        .hasMessage("unknown option --nope");
    assertThatThrownBy(() -> Args.parse(List.of("-x"), RUN))
        .isInstanceOf(UsageException.class)
        .hasMessage("unknown option -x");
    assertThatThrownBy(() -> Args.parse(List.of("--template"), RUN))
        .isInstanceOf(UsageException.class)
        .hasMessage("option --template needs a value");
    assertThatThrownBy(() -> Args.parse(List.of("--json=yes"), RUN))
        .isInstanceOf(UsageException.class)
        .hasMessage("option --json takes no value");
  }

  @Test
  void badNumbersAndPairsAreUsageErrorsNamingTheOption() {
    Args a = Args.parse(List.of("--ttl", "soon", "--env", "novalue"), RUN);

    assertThatThrownBy(() -> a.number("ttl", 0, 0, 10))
        .isInstanceOf(UsageException.class)
        .hasMessageContaining("--ttl");
    assertThatThrownBy(() -> Args.parse(List.of("--ttl", "99"), RUN).number("ttl", 0, 0, 10))
        .hasMessageContaining("between 0 and 10");
    assertThatThrownBy(() -> a.pairs("env")).hasMessageContaining("KEY=VALUE");
  }

  @Test
  void commandsWithoutATrailingCommandKeepPositionalsAndRejectTheDoubleDash() {
    Args a = Args.parse(List.of("sb_1", "--ref", "r"), PLAIN);

    assertThat(a.positionals()).containsExactly("sb_1");
    assertThat(a.positional(0, "the id")).isEqualTo("sb_1");
    assertThatThrownBy(() -> a.positional(1, "the token")).hasMessage("missing the token");
    assertThatThrownBy(() -> a.atMostPositionals(0)).hasMessageContaining("sb_1");
    assertThatThrownBy(() -> Args.parse(List.of("--", "x"), PLAIN))
        .isInstanceOf(UsageException.class);
  }

  @Test
  void helpIsAlwaysAFlag() {
    assertThat(Args.parse(List.of("-h"), PLAIN).flag("help")).isTrue();
    assertThat(Args.parse(List.of("--help"), RUN).flag("help")).isTrue();
  }
}
