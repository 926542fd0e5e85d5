package io.sandboxd.controller.reconcile;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.sandboxd.controller.standin.ApiStandIn;
import io.sandboxd.controller.standin.ObjectStore;

/**
 * A plain fabric8 client against the API stand-in, not fabric8's mock: the stand-in refuses a failed
 * "test" op with 422 and a taken name with 409 as the API server does.
 */
final class StandInClient implements AutoCloseable {
    final ObjectStore store = new ObjectStore();
    final ApiStandIn api;
    final KubernetesClient client;

    StandInClient(String defaultNamespace) throws Exception {
        api = new ApiStandIn(store);
        client = new KubernetesClientBuilder()
                .withConfig(new ConfigBuilder(Config.empty())
                        .withMasterUrl(api.url())
                        .withNamespace(defaultNamespace)
                        .withRequestTimeout(30_000)
                        .build())
                .build();
    }

    @Override
    public void close() {
        client.close();
        api.close();
    }
}
