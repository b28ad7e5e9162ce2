package dev.runkora.sandboxd.http;

import dev.runkora.sandboxd.engine.Admission;
import dev.runkora.sandboxd.engine.ClaimStore;
import dev.runkora.sandboxd.engine.Claims;
import dev.runkora.sandboxd.engine.Metrics;
import dev.runkora.sandboxd.engine.PoolManager;
import dev.runkora.sandboxd.engine.PoolsFile;
import dev.runkora.sandboxd.engine.Provisioner;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The parts of a running daemon the HTTP handlers use.
 *
 * @param auth the token checks
 * @param store the live claims
 * @param claims the claim lifecycle
 * @param pools the warm pools
 * @param admission caps and the drain cordon
 * @param provisioner the runtime and templates
 * @param metrics the counters
 * @param poolsFile where {@code PUT /v1/pools} persists
 * @param ownerAddr the node's advertise address, once the port is known; empty when unroutable
 */
public record Node(
    Auth auth,
    ClaimStore store,
    Claims claims,
    PoolManager pools,
    Admission admission,
    Provisioner provisioner,
    Metrics metrics,
    PoolsFile poolsFile,
    Supplier<Optional<String>> ownerAddr) {}
