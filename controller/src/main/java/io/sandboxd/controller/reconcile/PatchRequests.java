package io.sandboxd.controller.reconcile;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.ByteArrayInputStream;

/**
 * A JSON patch sent straight through the client's own HTTP client ({@link ApiExchange}),
 * answered or refused as fabric8's {@code resource(item).patch(...)} would: the patched object (or
 * only the resourceVersion it now has), or a {@link KubernetesClientException} carrying the API's
 * status. fabric8's patch first copied the addressed
 * item through a JSON round trip, built the URL through its generic path joiner and parsed the
 * patch body back into a tree to check it: 70 of 933 CPU samples of a warm burst (7.5 %, JFR,
 * issue 23), none of it needed for a patch we made ourselves.
 */
final class PatchRequests {
    static final String JSON_PATCH = "application/json-patch+json";

    private PatchRequests() {}

    /** Sends {@code jsonPatch} to {@code current} (its status subresource with {@code status}): the patched object. */
    static <T extends HasMetadata> T send(KubernetesClient client, T current, boolean status, String jsonPatch) {
        @SuppressWarnings("unchecked")
        Class<T> type = (Class<T>) current.getClass();
        byte[] body = sendForBody(client, current, status, jsonPatch);
        return client.getKubernetesSerialization().unmarshal(new ByteArrayInputStream(body), type);
    }

    /**
     * Sends {@code jsonPatch} like {@link #send} and answers only the resourceVersion the write made,
     * read from the response without binding it. A status write needs nothing else of the answer
     * ({@link StatusMemo}); binding the whole object was 3.9 % of the controller's CPU samples in a
     * paced warm burst ({@code perf}, issue 23).
     */
    static String sendForVersion(KubernetesClient client, HasMetadata current, boolean status, String jsonPatch) {
        return ResourceVersionScan.of(sendForBody(client, current, status, jsonPatch));
    }

    private static byte[] sendForBody(KubernetesClient client, HasMetadata current, boolean status, String jsonPatch) {
        return ApiExchange.exchange(
                client,
                "PATCH",
                ApiExchange.url(
                        client.getConfiguration().getMasterUrl(),
                        current.getClass(),
                        current.getMetadata().getNamespace(),
                        current.getMetadata().getName(),
                        status),
                JSON_PATCH,
                jsonPatch);
    }
}
