package dev.runkora.plugin.autoscaler.staticpool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.runkora.spi.autoscaler.AutoscalerContext;
import dev.runkora.spi.autoscaler.AutoscalerProvider;
import dev.runkora.spi.autoscaler.ClusterDemand;
import dev.runkora.spi.autoscaler.PoolDemand;
import dev.runkora.spi.core.ErrorKind;
import dev.runkora.spi.core.KoraException;
import dev.runkora.spi.core.PluginConfig;
import java.time.Duration;
import java.time.InstantSource;
import org.junit.jupiter.api.Test;

class StaticAutoscalerTest {

  private final AutoscalerContext context =
      new AutoscalerContext(InstantSource.system(), System.getLogger("test"));

  @Test
  void isProvidedUnderTheNameStaticInModuleInfoAndServiceFile() throws Exception {
    var provider = new StaticAutoscalerProvider();
    var descriptor = StaticAutoscalerProvider.class.getModule().getDescriptor();

    assertThat(provider.name()).isEqualTo("static");
    assertThat(descriptor.provides())
        .anySatisfy(
            p -> {
              assertThat(p.service()).isEqualTo(AutoscalerProvider.class.getName());
              assertThat(p.providers()).containsExactly(StaticAutoscalerProvider.class.getName());
            });
    try (var in =
        StaticAutoscalerProvider.class
            .getModule()
            .getResourceAsStream("META-INF/services/" + AutoscalerProvider.class.getName())) {
      assertThat(in).isNotNull();
      assertThat(new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).strip())
          .isEqualTo(StaticAutoscalerProvider.class.getName());
    }
  }

  @Test
  void theWarmTargetIsTheFloorEvenWhenACeilingIsSet() {
    var autoscaler = new StaticAutoscalerProvider().create(PluginConfig.empty(), context);
    var demand = new PoolDemand("p", 3, 12, 40.0, 0, 0, 9, Duration.ofSeconds(5));

    assertThat(autoscaler.warmTarget(demand)).isEqualTo(3);
  }

  @Test
  void placeholdersAreTheConfiguredReplicasAtTheGivenPriorityIgnoringPendingSandboxes() {
    var autoscaler = new StaticAutoscalerProvider().create(PluginConfig.empty(), context);

    var plan = autoscaler.placeholders(new ClusterDemand(2, 30, 5, -10));

    assertThat(plan.replicas()).isEqualTo(2);
    assertThat(plan.priority()).isEqualTo(-10);
  }

  @Test
  void anySettingIsRejectedBecauseItReadsNone() {
    assertThatThrownBy(
            () -> new StaticAutoscalerProvider().create(PluginConfig.of("decay", "30s"), context))
        .isInstanceOfSatisfying(
            KoraException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.INVALID_ARGUMENT))
        .hasMessageContaining("decay");
  }
}
