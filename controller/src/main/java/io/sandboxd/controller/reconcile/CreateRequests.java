package io.sandboxd.controller.reconcile;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.ByteArrayInputStream;

/**
 * A create sent straight through the client's own HTTP client ({@link ApiExchange}), as {@link
 * PatchRequests} sends a patch: answered or refused as fabric8's {@code resource(item).create()}
 * would, without its operation layers and generic path joiner (the URL alone was 16 % of a
 * create's CPU samples in a warm burst, JFR, issue 23). A caller that needs nothing of the answer
 * does not bind it (answering, which binds the object, was another fifth).
 */
final class CreateRequests {
    private static final String JSON = "application/json";

    private CreateRequests() {}

    /** Creates {@code item} in its own namespace: the object the API server made of it. */
    static <T extends HasMetadata> T create(KubernetesClient client, T item) {
        return create(client, item, client.getKubernetesSerialization().asJson(item));
    }

    /** {@link #create(KubernetesClient, HasMetadata)} with {@code body}, the JSON of {@code item}, made by the caller. */
    static <T extends HasMetadata> T create(KubernetesClient client, T item, String body) {
        @SuppressWarnings("unchecked")
        Class<T> type = (Class<T>) item.getClass();
        return client.getKubernetesSerialization().unmarshal(new ByteArrayInputStream(post(client, item, body)), type);
    }

    /**
     * Creates {@code item} like {@link #create} and drops the answer unread: for a caller that
     * named the object itself and learns the rest from its watch event.
     */
    static void createUnread(KubernetesClient client, HasMetadata item) {
        createUnread(client, item, client.getKubernetesSerialization().asJson(item));
    }

    /** {@link #createUnread(KubernetesClient, HasMetadata)} with {@code body}, the JSON of {@code item}. */
    static void createUnread(KubernetesClient client, HasMetadata item, String body) {
        post(client, item, body);
    }

    private static byte[] post(KubernetesClient client, HasMetadata item, String body) {
        String ns = item.getMetadata().getNamespace();
        if (item instanceof Namespaced && (ns == null || ns.isEmpty())) {
            // fabric8 would fall back to the client's namespace; every object we build names its own.
            throw new IllegalArgumentException(
                    item.getKind() + " \"" + item.getMetadata().getName() + "\" has no namespace to be created in");
        }
        return ApiExchange.exchange(
                client,
                "POST",
                ApiExchange.url(client.getConfiguration().getMasterUrl(), item.getClass(), ns, null, false),
                JSON,
                body);
    }
}
