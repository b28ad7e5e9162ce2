package dev.runkora.vk;

import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.models.V1Status;
import io.kubernetes.client.util.generic.KubernetesApiResponse;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesApi;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;

/** Reads a Pod's controller owner through the API server (one GET, any kind). */
final class ApiOwners implements Owners.Reader {
  private final ApiClient client;
  private final RateLimiter limiter;

  ApiOwners(ApiClient client, RateLimiter limiter) {
    this.client = client;
    this.limiter = limiter;
  }

  @Override
  public Owners.Lookup get(
      String group, String version, String plural, String namespace, String name) {
    limiter.acquire();
    KubernetesApiResponse<DynamicKubernetesObject> r;
    try {
      r = new DynamicKubernetesApi(group, version, plural, client).get(namespace, name);
    } catch (RuntimeException e) {
      return new Owners.Lookup.Failed(e.toString());
    }
    if (r.isSuccess() && r.getObject() != null) {
      var meta = r.getObject().getMetadata();
      return new Owners.Lookup.Found(
          meta.getUid() == null ? "" : meta.getUid(), meta.getDeletionTimestamp() != null);
    }
    if (r.getHttpStatusCode() == 404) {
      V1Status status = r.getStatus();
      String detailsName =
          status == null || status.getDetails() == null || status.getDetails().getName() == null
              ? ""
              : status.getDetails().getName();
      return new Owners.Lookup.NotFound(detailsName);
    }
    return new Owners.Lookup.Failed("HTTP " + r.getHttpStatusCode());
  }
}
