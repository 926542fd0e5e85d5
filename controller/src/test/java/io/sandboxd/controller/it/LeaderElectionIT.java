package io.sandboxd.controller.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfiguration;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sandboxd.controller.app.ControllerOptions;
import io.sandboxd.controller.app.Controllers;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Two controller replicas with the leader election Controllers.build passes to JOSDK, on one CRUD
 * mock server (which serves coordination.k8s.io/v1 Leases generically, with resourceVersion checks
 * on update). Short lease timings keep the take-over quick.
 */
class LeaderElectionIT {
    static final String LEASE = "sandboxd-controller.agents.x-k8s.io";
    static final String LEASE_NS = "agent-sandbox-system";

    static {
        java.util.logging.Logger.getLogger("io.fabric8.mockwebserver").setLevel(java.util.logging.Level.WARNING);
    }

    private final List<AutoCloseable> toClose = new ArrayList<>();
    private KubernetesMockServer server;
    private KubernetesClient client;

    final class Replica implements AutoCloseable {
        final String identity;
        final KubernetesClient client;
        final SimpleMeterRegistry registry = new SimpleMeterRegistry();
        final Operator operator;
        boolean stopped;

        Replica(String identity) {
            this.identity = identity;
            this.client = Controllers.client(
                    Controllers.tunedForMock(server.createClient().getConfiguration()));
            // exitOnStopLeading=false: JOSDK's default would System.exit the test JVM when this replica stops.
            var le = new LeaderElectionConfiguration(
                    LEASE,
                    LEASE_NS,
                    Duration.ofSeconds(4),
                    Duration.ofSeconds(3),
                    Duration.ofMillis(250),
                    identity,
                    null,
                    false);
            this.operator = Controllers.build(
                    client,
                    new ControllerOptions(
                            "cluster.local", false, new ControllerOptions.Workers(4, 1, 1, 1), Clock.systemUTC()),
                    registry,
                    le);
            operator.start();
        }

        double sandboxReconciles() {
            var c = registry.find("reconciliations.started.total")
                    .tag("controller.name", Controllers.SANDBOX)
                    .counter();
            return c == null ? 0 : c.count();
        }

        @Override
        public void close() {
            if (stopped) return;
            stopped = true;
            operator.stop();
            client.close();
        }
    }

    Lease lease() {
        return client.leases().inNamespace(LEASE_NS).withName(LEASE).get();
    }

    String holder() {
        Lease l = lease();
        return l == null || l.getSpec() == null ? null : l.getSpec().getHolderIdentity();
    }

    boolean hasPod(String ns, String name) {
        return client.pods().inNamespace(ns).withName(name).get() != null;
    }

    @AfterEach
    void tearDown() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) toClose.get(i).close();
        try {
            server.destroy();
        } catch (IllegalStateException e) {
            // still draining queued work; the JVM exit reclaims it
        }
    }

    @Test
    void onlyTheLeaseHolderReconcilesAndTheOtherReplicaTakesOverWhenItStops() throws Exception {
        server = new KubernetesMockServer(
                new io.fabric8.mockwebserver.Context(),
                new io.fabric8.mockwebserver.MockWebServer(),
                new java.util.HashMap<>(),
                new RecordingCrudDispatcher(),
                true);
        server.init();
        client = new KubernetesClientBuilder()
                .withConfig(Controllers.tunedForMock(server.createClient().getConfiguration()))
                .build();
        toClose.add(client);

        Replica a = new Replica("replica-a");
        toClose.add(a);
        Await.until("replica-a holds the Lease", Duration.ofSeconds(60), 100, () -> "replica-a".equals(holder()));
        Replica b = new Replica("replica-b");
        toClose.add(b);

        String ns = ControllerHarness.namespace("le");
        client.resource(ControllerHarness.sandbox(ns, "first")).create();
        Await.until("leader creates the Pod", () -> hasPod(ns, "first"));
        Await.until("leader reconciled", () -> a.sandboxReconciles() > 0);
        // The standby has its caches but starts no reconcile while the leader renews the Lease
        // (well past a lease duration, so a standby that ignored the Lease would have run by now).
        Thread.sleep(5_000);
        assertThat(b.sandboxReconciles()).as("standby reconciles").isZero();
        Lease l = lease();
        assertThat(l.getSpec().getHolderIdentity()).isEqualTo("replica-a");
        assertThat(l.getSpec().getLeaseDurationSeconds()).isEqualTo(4);

        double aBefore = a.sandboxReconciles();
        a.close();
        Await.until("replica-b takes the Lease", Duration.ofSeconds(60), 100, () -> "replica-b".equals(holder()));
        client.resource(ControllerHarness.sandbox(ns, "second")).create();
        Await.until("new leader creates the Pod", () -> hasPod(ns, "second"));
        assertThat(b.sandboxReconciles()).isPositive();
        assertThat(a.sandboxReconciles()).as("stopped replica reconciles").isEqualTo(aBefore);
        assertThat(lease().getSpec().getLeaseTransitions()).isGreaterThanOrEqualTo(1);
    }
}
