/**
 * The embedding API of kora-sandboxd: {@link dev.runkora.sandboxd.SandboxdConfig} (loaded from the
 * sandboxd {@code config.json}), {@link dev.runkora.sandboxd.Sandboxd#start} and the {@link
 * dev.runkora.sandboxd.SandboxdInfo} snapshot for progress displays.
 */
package dev.runkora.sandboxd;
