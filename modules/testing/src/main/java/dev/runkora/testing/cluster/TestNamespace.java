package dev.runkora.testing.cluster;

/**
 * A namespace created for one test method (or class) by {@link KubeClusterExtension}; it is deleted
 * when that test ends.
 *
 * @param name the namespace's name
 */
public record TestNamespace(String name) {}
