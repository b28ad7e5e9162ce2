package dev.runkora.testing.cluster;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Marks a test class that runs against a real Kubernetes cluster.
 *
 * <p>Test methods (and lifecycle methods) may declare parameters of type {@link
 * io.kubernetes.client.openapi.ApiClient} (an admin client for the cluster) and {@link
 * TestNamespace} (a namespace of their own, created before and deleted after the method or, when
 * resolved in a {@code @BeforeAll} method, the class). See {@link KubeClusterExtension} for how the
 * cluster is chosen.
 *
 * <pre>{@code
 * @KubeClusterTest
 * class PlacementE2E {
 *   @Test
 *   void podLandsOnTheSandboxNode(ApiClient client, TestNamespace namespace) throws Exception {
 *     try (FakeNode node = FakeNode.builder("fake-0").label("tier", "sandbox").start(client)) {
 *       new CoreV1Api(client).createNamespacedPod(namespace.name(), pod).execute();
 *       await().until(...);
 *     }
 *   }
 * }
 * }</pre>
 */
@Documented
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Tag("cluster")
@ExtendWith(KubeClusterExtension.class)
public @interface KubeClusterTest {}
