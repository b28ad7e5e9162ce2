package dev.runkora.testing.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.JSON;
import io.kubernetes.client.openapi.apis.ApiextensionsV1Api;
import io.kubernetes.client.openapi.apis.CustomObjectsApi;
import io.kubernetes.client.openapi.models.V1CustomResourceDefinition;
import io.kubernetes.client.openapi.models.V1CustomResourceDefinitionNames;
import io.kubernetes.client.openapi.models.V1CustomResourceDefinitionSpec;
import io.kubernetes.client.openapi.models.V1CustomResourceDefinitionVersion;
import io.kubernetes.client.openapi.models.V1CustomResourceValidation;
import io.kubernetes.client.openapi.models.V1JSONSchemaProps;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Status;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** A CRD's OpenAPI schema is enforced by the API server: invalid objects never get stored. */
@KubeClusterTest
class CustomResourceValidationE2E {
  private static final String VERSION = "v1";
  private static final String PLURAL = "widgets";

  private static String group;

  @BeforeAll
  static void applyDefinition(ApiClient client) throws Exception {
    // A fresh group per run: CRDs are cluster-scoped and a kind cluster outlives test runs.
    group = TestPods.unique("t") + ".e2e.runkora.dev";
    V1JSONSchemaProps spec =
        schema("object")
            .required(List.of("size"))
            .properties(
                Map.of(
                    "size",
                    schema("string")._enum(List.of("small", "large")),
                    "replicas",
                    schema("integer").minimum(1.0)));
    V1CustomResourceDefinition definition =
        new V1CustomResourceDefinition()
            .metadata(new V1ObjectMeta().name(PLURAL + "." + group))
            .spec(
                new V1CustomResourceDefinitionSpec()
                    .group(group)
                    .scope("Namespaced")
                    .names(
                        new V1CustomResourceDefinitionNames()
                            .plural(PLURAL)
                            .singular("widget")
                            .kind("Widget")
                            .listKind("WidgetList"))
                    .versions(
                        List.of(
                            new V1CustomResourceDefinitionVersion()
                                .name(VERSION)
                                .served(true)
                                .storage(true)
                                .schema(
                                    new V1CustomResourceValidation()
                                        .openAPIV3Schema(
                                            schema("object")
                                                .required(List.of("spec"))
                                                .properties(Map.of("spec", spec)))))));
    ApiextensionsV1Api extensions = new ApiextensionsV1Api(client);
    extensions.createCustomResourceDefinition(definition).execute();
    await("CRD established")
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                extensions
                    .readCustomResourceDefinition(PLURAL + "." + group)
                    .execute()
                    .getStatus()
                    .getConditions(),
            conditions ->
                conditions != null
                    && conditions.stream()
                        .anyMatch(
                            c ->
                                "Established".equals(c.getType()) && "True".equals(c.getStatus())));
    // Established precedes the first request the new endpoint serves (404, then 429 while its
    // storage initialises).
    CustomObjectsApi objects = new CustomObjectsApi(client);
    await("CRD endpoint served")
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptionsMatching(
            e -> e instanceof ApiException api && (api.getCode() == 404 || api.getCode() == 429))
        .until(() -> objects.listClusterCustomObject(group, VERSION, PLURAL).execute() != null);
  }

  @AfterAll
  static void deleteDefinition(ApiClient client) throws Exception {
    if (group != null) {
      new ApiextensionsV1Api(client).deleteCustomResourceDefinition(PLURAL + "." + group).execute();
    }
  }

  @Test
  void validObjectIsStored(ApiClient client, TestNamespace namespace) throws Exception {
    CustomObjectsApi objects = new CustomObjectsApi(client);
    objects
        .createNamespacedCustomObject(
            group,
            VERSION,
            namespace.name(),
            PLURAL,
            widget("good", Map.of("size", "small", "replicas", 2)))
        .execute();

    Object stored =
        objects
            .getNamespacedCustomObject(group, VERSION, namespace.name(), PLURAL, "good")
            .execute();
    assertThat(stored)
        .asInstanceOf(InstanceOfAssertFactories.MAP)
        .extractingByKey("spec")
        .isEqualTo(Map.of("size", "small", "replicas", 2.0));
  }

  @Test
  void invalidObjectIsRejectedByTheApiServer(ApiClient client, TestNamespace namespace)
      throws Exception {
    CustomObjectsApi objects = new CustomObjectsApi(client);
    assertRejected(
        objects,
        namespace,
        widget("not-in-enum", Map.of("size", "huge")),
        "spec.size",
        "FieldValueNotSupported");
    assertRejected(
        objects,
        namespace,
        widget("missing-size", Map.of("replicas", 1)),
        "spec.size",
        "FieldValueRequired");
    assertRejected(
        objects,
        namespace,
        widget("too-few", Map.of("size", "large", "replicas", 0)),
        "spec.replicas",
        "FieldValueInvalid");

    Object list =
        objects.listNamespacedCustomObject(group, VERSION, namespace.name(), PLURAL).execute();
    assertThat(list)
        .asInstanceOf(InstanceOfAssertFactories.MAP)
        .extractingByKey("items")
        .asInstanceOf(InstanceOfAssertFactories.LIST)
        .as("nothing invalid was stored")
        .isEmpty();
  }

  private static void assertRejected(
      CustomObjectsApi objects,
      TestNamespace namespace,
      Map<String, Object> widget,
      String field,
      String causeReason) {
    ApiException rejected =
        catchThrowableOfType(
            ApiException.class,
            () ->
                objects
                    .createNamespacedCustomObject(group, VERSION, namespace.name(), PLURAL, widget)
                    .execute());
    assertThat(rejected).as("rejection of %s", widget).isNotNull();
    assertThat(rejected.getCode()).isEqualTo(422);
    V1Status status = JSON.deserialize(rejected.getResponseBody(), V1Status.class);
    assertThat(status.getReason()).isEqualTo("Invalid");
    assertThat(status.getDetails().getCauses())
        .as("causes of the rejection of %s", widget)
        .anySatisfy(
            cause -> {
              assertThat(cause.getField()).isEqualTo(field);
              assertThat(cause.getReason()).isEqualTo(causeReason);
            });
  }

  /**
   * A schema node. client-java 27 initialises every map, and the API server forbids even an empty
   * {@code dependencies} in a CRD schema.
   */
  private static V1JSONSchemaProps schema(String type) {
    return new V1JSONSchemaProps().type(type).dependencies(null);
  }

  private static Map<String, Object> widget(String name, Map<String, Object> spec) {
    return Map.of(
        "apiVersion",
        group + "/" + VERSION,
        "kind",
        "Widget",
        "metadata",
        Map.of("name", name),
        "spec",
        spec);
  }
}
