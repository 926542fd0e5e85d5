package io.sandboxd.router.authz;

import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.time.Duration;

/** The API client reviews go through. */
final class ReviewClient {
    private ReviewClient() {}

    /**
     * An own client with no retries and a short timeout: a request waiting on a slow or failing API
     * server must fail fast with a 500, not sit through the default exponential retries.
     */
    static KubernetesClient of(KubernetesClient client, Duration reviewTimeout) {
        return new KubernetesClientBuilder()
                .withConfig(new ConfigBuilder(client.getConfiguration())
                        .withRequestRetryBackoffLimit(0)
                        .withRequestTimeout((int) reviewTimeout.toMillis())
                        .withConnectionTimeout((int) reviewTimeout.toMillis())
                        .build())
                .build();
    }
}
