/**
 * The conformance suites: one abstract JUnit 5 class per SPI capability area. Every plugin module
 * extends the suites of its extension point in its own tests; what runs follows the plugin's
 * declared capabilities, and an undeclared capability must be rejected with {@code UNSUPPORTED}.
 */
module dev.runkora.conformance {
  requires transitive dev.runkora.spi.runtime;
  requires transitive dev.runkora.spi.registry;
  requires transitive dev.runkora.spi.storage;
  requires transitive dev.runkora.spi.autoscaler;
  requires transitive org.junit.jupiter.api;
  requires transitive org.assertj.core;
  requires awaitility; // no Automatic-Module-Name: the name comes from the jar file
  requires jdk.httpserver; // the registry suites' stand-in registry wire

  exports dev.runkora.conformance.runtime;
  exports dev.runkora.conformance.registry;
  exports dev.runkora.conformance.storage;
  exports dev.runkora.conformance.autoscaler;
}
