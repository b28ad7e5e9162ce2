package dev.runkora.testing.cluster;

import static org.awaitility.Awaitility.await;

import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.util.ClientBuilder;
import io.kubernetes.client.util.KubeConfig;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

/** The cluster of one test run: a client, and the local control plane when we started one. */
final class KubeCluster implements AutoCloseable {
  private final ApiClient client;
  private final Optional<LocalControlPlane> plane;
  private final RuntimeException failure;

  private KubeCluster(ApiClient client, Optional<LocalControlPlane> plane, RuntimeException fail) {
    this.client = client;
    this.plane = plane;
    this.failure = fail;
  }

  static KubeCluster connect() {
    try {
      String kubeconfig = System.getenv("KUBECONFIG");
      if (kubeconfig != null && !kubeconfig.isBlank()) {
        Path file = Path.of(kubeconfig.split(java.io.File.pathSeparator)[0]);
        System.err.println("kora cluster: using KUBECONFIG " + file);
        return new KubeCluster(client(file), Optional.empty(), null);
      }
      LocalControlPlane plane = LocalControlPlane.start();
      try {
        return new KubeCluster(client(plane.kubeconfig()), Optional.of(plane), null);
      } catch (RuntimeException | LinkageError e) {
        plane.close();
        throw e;
      }
    } catch (RuntimeException | LinkageError e) {
      // LinkageError: a module-path problem (an unexported package) surfaces as IllegalAccessError.
      return new KubeCluster(null, Optional.empty(), new IllegalStateException(e.toString(), e));
    }
  }

  private static ApiClient client(Path kubeconfig) {
    try (Reader reader = Files.newBufferedReader(kubeconfig)) {
      KubeConfig config = KubeConfig.loadKubeConfig(reader);
      config.setFile(kubeconfig.toFile());
      return ClientBuilder.kubeconfig(config).setReadTimeout(Duration.ofSeconds(30)).build();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read kubeconfig " + kubeconfig, e);
    }
  }

  KubeCluster checkStarted() {
    if (failure != null) {
      throw new IllegalStateException("no Kubernetes cluster: " + failure.getMessage(), failure);
    }
    return this;
  }

  ApiClient client() {
    return client;
  }

  /** Creates a namespace for one test and waits until pods can be created in it. */
  OwnedNamespace createNamespace(String displayName, String uniqueId) {
    String name =
        "e2e-"
            + HexFormat.of()
                .toHexDigits(ThreadLocalRandom.current().nextInt())
                .toLowerCase(Locale.ROOT);
    CoreV1Api core = new CoreV1Api(client);
    V1Namespace namespace =
        new V1Namespace()
            .metadata(
                new V1ObjectMeta()
                    .name(name)
                    .labels(Map.of("app.kubernetes.io/part-of", "kora-e2e"))
                    .annotations(Map.of("kora.runkora.dev/test", uniqueId)));
    try {
      core.createNamespace(namespace).execute();
    } catch (ApiException e) {
      throw new IllegalStateException(
          "cannot create namespace " + name + " for " + displayName + ": " + e.getResponseBody(),
          e);
    }
    // The ServiceAccount admission plugin rejects pods until the controller-manager has made the
    // namespace's default ServiceAccount.
    await("ServiceAccount " + name + "/default")
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(100))
        .ignoreException(ApiException.class)
        .until(() -> core.readNamespacedServiceAccount("default", name).execute() != null);
    return new OwnedNamespace(new TestNamespace(name), client);
  }

  @Override
  public void close() {
    plane.ifPresent(LocalControlPlane::close);
  }

  /** A namespace that is deleted (without waiting for it to go) when its test context closes. */
  record OwnedNamespace(TestNamespace namespace, ApiClient client) implements AutoCloseable {
    @Override
    public void close() {
      try {
        new CoreV1Api(client).deleteNamespace(namespace.name()).execute();
      } catch (ApiException e) {
        if (e.getCode() != 404) {
          System.err.println(
              "kora cluster: cannot delete namespace " + namespace.name() + ": " + e.getCode());
        }
      }
    }
  }
}
