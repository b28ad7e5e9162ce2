/**
 * The sandboxd v1 wire types ({@link dev.runkora.api.ClaimRequest}, {@link
 * dev.runkora.api.ClaimResponse}, {@link dev.runkora.api.SandboxRow}, {@link
 * dev.runkora.api.ExecRequest}, {@link dev.runkora.api.ExecResult}, {@link dev.runkora.api.Info},
 * {@link dev.runkora.api.PoolSpec}, ...) and {@link dev.runkora.api.SandboxdClient}.
 *
 * <p>Every type maps to and from JSON with {@code toJson()} and {@code fromJson(JsonObject)}.
 * Readers ignore unknown fields, as the contract asks of clients; writers leave out fields that
 * hold their default, so that strict server bodies (exec, pools) accept them. Absent strings are
 * empty strings, absent lists empty lists: no accessor returns {@code null}.
 */
package dev.runkora.api;
