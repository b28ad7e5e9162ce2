/**
 * The {@code kora} command line: {@code up} (kora-sandboxd in this process with warm pools), {@code
 * run}, the thin client commands ({@code claim}, {@code exec}, {@code release}, {@code info},
 * {@code pools}, {@code sandboxes}) and {@code bench}.
 *
 * <p>Talks to a daemon only through {@code dev.runkora.api}; embeds one through {@code
 * dev.runkora.sandboxd}. Exports nothing: its entry point is {@code dev.runkora.cli.Main}.
 */
module dev.runkora.cli {
  requires dev.runkora.api;
  requires dev.runkora.common;
  requires dev.runkora.sandboxd;
  requires jakarta.json;
  requires java.logging;
}
