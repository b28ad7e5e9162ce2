package dev.runkora.testing.cluster;

import io.kubernetes.client.openapi.ApiClient;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Gives tests a real Kubernetes cluster: resolves {@link ApiClient} and {@link TestNamespace}
 * parameters.
 *
 * <p>The cluster is the one named by the {@code KUBECONFIG} environment variable (its first file)
 * when that is set, for example kind on a laptop ({@code conformance/cluster/kind.sh}). Otherwise
 * the local control plane is started once per test run with {@code conformance/cluster/up.sh} into
 * a temporary directory, on free loopback ports, and stopped with {@code down.sh} when the run ends
 * (or the JVM exits). The scripts are found by walking up from the working directory, or in the
 * directory named by the system property {@code kora.cluster.scripts}.
 *
 * <p>A {@link TestNamespace} belongs to the extension context that resolved it: a test method's
 * parameter gets a namespace for that method, a {@code @BeforeAll} parameter one for the class. The
 * namespace is ready for pods (its {@code default} ServiceAccount exists) and is deleted, without
 * waiting, when that context ends.
 */
public final class KubeClusterExtension implements ParameterResolver {
  private static final ExtensionContext.Namespace STORE =
      ExtensionContext.Namespace.create(KubeClusterExtension.class);

  /** Creates the extension; JUnit calls this. */
  public KubeClusterExtension() {}

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    Class<?> type = parameter.getParameter().getType();
    return type == ApiClient.class || type == TestNamespace.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    KubeCluster cluster = cluster(context);
    Class<?> type = parameter.getParameter().getType();
    if (type == ApiClient.class) {
      return cluster.client();
    }
    try {
      return context
          .getStore(STORE)
          .computeIfAbsent(
              // Stores see their parents' values: key by context, or a method would get the
              // namespace of its class.
              "namespace " + context.getUniqueId(),
              key -> cluster.createNamespace(context.getDisplayName(), context.getUniqueId()),
              KubeCluster.OwnedNamespace.class)
          .namespace();
    } catch (RuntimeException e) {
      throw new ParameterResolutionException(
          "cannot create a test namespace: " + e.getMessage(), e);
    }
  }

  private static KubeCluster cluster(ExtensionContext context) {
    // One cluster per test run: the root store closes it (AutoCloseable) when the run ends. A
    // failed start is remembered so that later tests fail at once instead of retrying it.
    KubeCluster cluster =
        context
            .getRoot()
            .getStore(STORE)
            .computeIfAbsent("cluster", key -> KubeCluster.connect(), KubeCluster.class);
    return cluster.checkStarted();
  }
}
