package io.sandboxd.controller.reconcile;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.internal.OperationSupport;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One write to the API server sent straight through the client's own HTTP client (its
 * authentication, retries and TLS included): an object's or a collection's URL, and a request with
 * a body answered with the response's body or refused with the {@link KubernetesClientException}
 * fabric8's own operations would throw. {@link PatchRequests} and {@link CreateRequests} send their
 * writes through it, without fabric8's operation layers and generic path joiner.
 */
final class ApiExchange {
    private ApiExchange() {}

    /** The URL prefix of a kind up to its plural, e.g. {@code /apis/agents.x-k8s.io/v1beta1}. */
    private static final ClassValue<String[]> KIND_PATH = new ClassValue<>() {
        @Override
        protected String[] computeValue(Class<?> type) {
            @SuppressWarnings("unchecked")
            Class<? extends HasMetadata> t = (Class<? extends HasMetadata>) type;
            String group = HasMetadata.getGroup(t);
            String api = group == null || group.isEmpty()
                    ? "/api/" + HasMetadata.getVersion(t)
                    : "/apis/" + group + "/" + HasMetadata.getVersion(t);
            return new String[] {api, HasMetadata.getPlural(t)};
        }
    };

    /**
     * The object's URL: {@code <master>/api[s]/<group/>version[/namespaces/<ns>]/<plural>/<name>[/status]},
     * or its collection's without a name (a create's). Names and namespaces are the API server's own
     * (DNS labels and subdomains): nothing to escape.
     */
    static String url(
            String masterUrl, Class<? extends HasMetadata> type, String namespace, String name, boolean status) {
        String[] kind = KIND_PATH.get(type);
        StringBuilder b = new StringBuilder(masterUrl.length() + 96);
        b.append(masterUrl, 0, masterUrl.endsWith("/") ? masterUrl.length() - 1 : masterUrl.length());
        b.append(kind[0]);
        if (namespace != null && !namespace.isEmpty()) {
            b.append("/namespaces/").append(namespace);
        }
        b.append('/').append(kind[1]);
        if (name != null) {
            b.append('/').append(name);
        }
        if (status) {
            b.append("/status");
        }
        return b.toString();
    }

    /** One request with a body through the client's HTTP client: the answer's body, or fabric8's exception for a refusal. */
    static byte[] exchange(KubernetesClient client, String method, String url, String contentType, String body) {
        HttpClient http = client.getHttpClient();
        HttpRequest request = http.newHttpRequestBuilder()
                .uri(url)
                .method(method, contentType, body)
                .build();
        HttpResponse<byte[]> response = await(request, http.sendAsync(request, byte[].class), client);
        if (!response.isSuccessful()) {
            throw OperationSupport.requestFailure(
                    request, OperationSupport.createStatus(response, client.getKubernetesSerialization()));
        }
        return response.body();
    }

    /** The response within the client's request timeout (none when it is 0), failures as fabric8 words them. */
    private static HttpResponse<byte[]> await(
            HttpRequest request, CompletableFuture<HttpResponse<byte[]>> pending, KubernetesClient client) {
        int timeoutMs = client.getConfiguration().getRequestTimeout();
        try {
            return timeoutMs > 0 ? pending.get(timeoutMs, TimeUnit.MILLISECONDS) : pending.get();
        } catch (InterruptedException e) {
            pending.cancel(true);
            Thread.currentThread().interrupt();
            throw OperationSupport.requestException(request, e);
        } catch (TimeoutException e) {
            pending.cancel(true);
            throw OperationSupport.requestException(request, e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof KubernetesClientException k) {
                throw k;
            }
            throw OperationSupport.requestException(request, cause instanceof Exception x ? x : e);
        }
    }
}
