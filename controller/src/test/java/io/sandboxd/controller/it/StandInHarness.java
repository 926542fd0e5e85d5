package io.sandboxd.controller.it;

import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.Operator;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sandboxd.controller.app.ControllerOptions;
import io.sandboxd.controller.app.Controllers;
import io.sandboxd.controller.app.ReconcileWorkers;
import io.sandboxd.controller.standin.ApiStandIn;
import io.sandboxd.controller.standin.ObjectStore;
import io.sandboxd.controller.standin.StandInKubelet;
import java.time.Clock;
import java.time.Duration;
import java.util.List;

/**
 * The controller in this JVM against the fast API stand-in (not the single-threaded CRUD mock):
 * for tests at the scale of a burst, with every request recorded at the API boundary. fabric8 is
 * configured as in the controller's jar, so its watches are WebSockets, as against a real API
 * server and as the benchmark sees them. Every object carries managedFields, and every Pod the
 * defaults and status it has in a cluster, so the request counts asserted here hold with them.
 */
final class StandInHarness implements AutoCloseable {
    final ObjectStore store = new ObjectStore().recordManagedFields().applyPodDefaults();
    final ApiStandIn api;
    final StandInKubelet kubelet;
    final KubernetesClient client;
    final Operator operator;
    final ReconcileWorkers workers = Controllers.workers(ControllerOptions.Workers.defaults());
    /** Reconciles get the cached primary itself, as in production; this also checks none was changed. */
    final MutationCheckingCloner primaries = new MutationCheckingCloner();

    StandInHarness() throws Exception {
        api = new ApiStandIn(store);
        kubelet = new StandInKubelet(store, Duration.ZERO);
        client = Controllers.client(Controllers.tuned(new ConfigBuilder(io.fabric8.kubernetes.client.Config.empty())
                .withMasterUrl(api.url())
                .withNamespace("default")
                .withRequestTimeout(60_000)
                .withConnectionTimeout(60_000)
                .build()));
        operator = Controllers.build(
                client,
                new ControllerOptions("cluster.local", true, ControllerOptions.Workers.defaults(), Clock.systemUTC()),
                new SimpleMeterRegistry(),
                null,
                workers,
                Controllers.DEFAULT_CACHE_SYNC_TIMEOUT,
                primaries);
        operator.start();
    }

    @Override
    public void close() {
        operator.stop();
        List<String> changed = primaries.changedPrimaries();
        client.close();
        kubelet.close();
        api.close();
        MutationCheckingCloner.assertNoneChanged(changed);
    }
}
