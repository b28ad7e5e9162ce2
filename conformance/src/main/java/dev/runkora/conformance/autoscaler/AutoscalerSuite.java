package dev.runkora.conformance.autoscaler;

import dev.runkora.spi.autoscaler.Autoscaler;
import dev.runkora.spi.autoscaler.AutoscalerCapability;
import dev.runkora.spi.autoscaler.AutoscalerContext;
import dev.runkora.spi.autoscaler.AutoscalerProvider;
import dev.runkora.spi.autoscaler.PoolDemand;
import dev.runkora.spi.core.PluginConfig;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * What the autoscaler suites share: the provider under test, a live autoscaler created with a
 * {@link ManualClock}, and demand builders. A plugin's test class extends each suite and returns
 * its provider (and, where it needs one, a configuration).
 */
public abstract class AutoscalerSuite {

  /** The clock the autoscaler under test reads; tests move it. */
  protected final ManualClock clock = new ManualClock();

  /** The autoscaler under test, created before each test and closed after it. */
  protected Autoscaler autoscaler;

  /** Returns the provider under test. */
  protected abstract AutoscalerProvider provider();

  /** Returns the configuration the autoscaler is created with; empty by default. */
  protected PluginConfig config() {
    return PluginConfig.empty();
  }

  /** Creates the autoscaler. */
  @BeforeEach
  public void createAutoscaler() {
    autoscaler =
        provider()
            .create(
                config(), new AutoscalerContext(clock, System.getLogger("kora.conformance.test")));
  }

  /** Closes the autoscaler. */
  @AfterEach
  public void closeAutoscaler() {
    if (autoscaler != null) {
      autoscaler.close();
    }
  }

  /** Returns whether the provider declares a capability. */
  protected boolean declares(AutoscalerCapability capability) {
    return provider().capabilities().contains(capability);
  }

  /** Returns a demand with no claims arriving and nothing pending. */
  protected static PoolDemand quiet(String pool, int floor, int ceiling) {
    return new PoolDemand(pool, floor, ceiling, 0.0, floor, 0, 0, Duration.ofSeconds(2));
  }

  /** Returns a demand with claims arriving and some pending. */
  protected static PoolDemand busy(
      String pool, int floor, int ceiling, double arrivalsPerSecond, int pending) {
    return new PoolDemand(
        pool, floor, ceiling, arrivalsPerSecond, 0, 0, pending, Duration.ofSeconds(2));
  }
}
