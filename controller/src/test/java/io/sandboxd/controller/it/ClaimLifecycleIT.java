package io.sandboxd.controller.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.sandboxd.controller.model.Conds;
import io.sandboxd.controller.model.Sandbox;
import io.sandboxd.controller.model.SandboxClaim;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * SandboxClaim expiry (as upstream agent-sandbox does): ttlSecondsAfterFinished counts from the Finished
 * transition, and the three shutdown policies as they reach the API server (the CRUD mock ignores
 * DeleteOptions, so the propagation policy is read from the recorded DELETE requests).
 */
class ClaimLifecycleIT {
    static final Pattern PROPAGATION = Pattern.compile("\"propagationPolicy\"\\s*:\\s*\"([A-Za-z]+)\"");
    static RecordingCrudDispatcher dispatcher;
    static ControllerHarness h;
    static KubernetesClient client;

    @BeforeAll
    static void start() {
        dispatcher = new RecordingCrudDispatcher();
        h = new ControllerHarness(dispatcher);
        client = h.client;
    }

    @AfterAll
    static void stop() {
        h.close();
    }

    static SandboxClaim claim(String ns, String name, SandboxClaim.Lifecycle lc) {
        SandboxClaim c = ExtensionsIT.claim(ns, name, "p");
        c.getSpec().setLifecycle(lc);
        return c;
    }

    static SandboxClaim getClaim(String ns, String name) {
        return client.resources(SandboxClaim.class)
                .inNamespace(ns)
                .withName(name)
                .get();
    }

    static String readyReason(SandboxClaim c) {
        Condition r = c == null || c.getStatus() == null
                ? null
                : Conds.find(c.getStatus().getConditions(), "Ready");
        return r == null ? null : r.getReason();
    }

    static String propagation(RecordingCrudDispatcher.Delete d) {
        Matcher m = PROPAGATION.matcher(d.body() == null ? "" : d.body());
        return m.find() ? m.group(1) : null;
    }

    /** Pool of 0: every claim gets a cold Sandbox named like the claim, whose Pod the fake kubelet runs. */
    static String namespaceWithPool(String prefix) {
        String ns = ControllerHarness.namespace(prefix);
        h.kubelet.auto(ns);
        client.resource(ExtensionsIT.template(ns, "tpl")).create();
        client.resource(ExtensionsIT.pool(ns, "p", "tpl", 0)).create();
        return ns;
    }

    @Test
    void ttlAfterFinishedDeletesTheClaimOnlyOnceTtlSecondsHavePassedSinceTheSandboxFinished() throws Exception {
        String ns = namespaceWithPool("ttl");
        int ttl = 3;
        AtomicReference<Instant> deletedAt = new AtomicReference<>();
        AtomicReference<String> finishedSeen = new AtomicReference<>();
        // A watch sees every state the claim passes through, however briefly.
        SharedIndexInformer<SandboxClaim> inf = client.resources(SandboxClaim.class)
                .inNamespace(ns)
                .inform(new ResourceEventHandler<>() {
                    @Override
                    public void onAdd(SandboxClaim c) {
                        see(c);
                    }

                    @Override
                    public void onUpdate(SandboxClaim o, SandboxClaim c) {
                        see(c);
                    }

                    @Override
                    public void onDelete(SandboxClaim c, boolean unknown) {
                        deletedAt.compareAndSet(null, Instant.now());
                        see(c);
                    }

                    private void see(SandboxClaim c) {
                        if (c.getStatus() != null && Conds.isTrue(c.getStatus().getConditions(), "Finished")) {
                            finishedSeen.compareAndSet(
                                    null,
                                    Conds.find(c.getStatus().getConditions(), "Finished")
                                            .getLastTransitionTime());
                        }
                    }
                });
        try {
            var lc = new SandboxClaim.Lifecycle();
            lc.setTtlSecondsAfterFinished(ttl);
            lc.setShutdownPolicy("Delete");
            client.resource(claim(ns, "job", lc)).create();
            Await.until(
                    "claim Ready",
                    Duration.ofSeconds(60),
                    100,
                    () -> Conds.isTrue(getClaim(ns, "job").getStatus().getConditions(), "Ready"));
            // Running, not finished: the TTL has not started, so the claim outlives it.
            Thread.sleep((ttl + 1) * 1000L);
            assertThat(getClaim(ns, "job"))
                    .as("claim of a running Sandbox is kept past the TTL")
                    .isNotNull();
            assertThat(deletedAt.get()).isNull();

            Instant finishedAfter = Instant.now().truncatedTo(ChronoUnit.SECONDS);
            h.kubelet.setPhase(ns, "job", "Succeeded");
            Await.until("claim deleted after the TTL", Duration.ofSeconds(60), 100, () -> deletedAt.get() != null);
            assertThat(finishedSeen.get())
                    .as("claim reported Finished before it was deleted")
                    .isNotNull();
            Instant lastTransition = Instant.parse(finishedSeen.get());
            assertThat(lastTransition).isAfterOrEqualTo(finishedAfter);
            // Not before: the delete happened no earlier than Finished's lastTransitionTime + TTL
            // (whole seconds, as the API stores it), and so no earlier than the Pod's end + TTL - 1 s.
            assertThat(deletedAt.get())
                    .as("deleted at, vs Finished at %s + %d s", lastTransition, ttl)
                    .isAfterOrEqualTo(lastTransition.plusSeconds(ttl));
            assertThat(deletedAt.get()).isAfterOrEqualTo(finishedAfter.plusSeconds(ttl));
            assertThat(dispatcher.deletesOf(ns, "sandboxclaims", "job")).isNotEmpty();
        } finally {
            inf.close();
        }
    }

    @Test
    void shutdownPoliciesDeleteForegroundDeletesTheClaimInForegroundDeleteInBackgroundRetainKeepsTheClaim() {
        String ns = namespaceWithPool("policy");
        Instant shutdown = Instant.now().plusSeconds(3);
        for (String policy : List.of("DeleteForeground", "Delete", "Retain")) {
            var lc = new SandboxClaim.Lifecycle();
            lc.setShutdownPolicy(policy);
            lc.setShutdownTime(shutdown.toString());
            client.resource(claim(ns, policy.toLowerCase(), lc)).create();
        }
        for (String name : List.of("deleteforeground", "delete", "retain")) {
            Await.until(
                    name + " bound",
                    () -> ExtensionsIT.boundName(getClaim(ns, name)) != null || getClaim(ns, name) == null);
        }
        Await.until(
                "both deleting claims gone",
                () -> getClaim(ns, "deleteforeground") == null && getClaim(ns, "delete") == null);
        Await.until("retained claim expired and its Sandbox gone", () -> {
            SandboxClaim c = getClaim(ns, "retain");
            return "ClaimExpired".equals(readyReason(c))
                    && c.getStatus().getSandbox() == null
                    && client.resources(Sandbox.class)
                                    .inNamespace(ns)
                                    .withName("retain")
                                    .get()
                            == null;
        });

        var fg = dispatcher.deletesOf(ns, "sandboxclaims", "deleteforeground");
        assertThat(fg).as("DeleteForeground: one claim DELETE").isNotEmpty();
        assertThat(fg).allSatisfy(d -> assertThat(propagation(d)).as(d.body()).isEqualTo("Foreground"));
        var bg = dispatcher.deletesOf(ns, "sandboxclaims", "delete");
        assertThat(bg).as("Delete: one claim DELETE").isNotEmpty();
        // fabric8 sends its default (Background) explicitly; upstream sends none, which the API server
        // treats as Background for custom resources. Either way: never Foreground.
        assertThat(bg).allSatisfy(d -> assertThat(propagation(d)).as(d.body()).isIn(null, "Background"));
        // Neither deleting policy touched the Sandbox itself (garbage collection does that).
        assertThat(dispatcher.deletesOf(ns, "sandboxes", "deleteforeground")).isEmpty();
        assertThat(dispatcher.deletesOf(ns, "sandboxes", "delete")).isEmpty();

        // Retain: the claim is never deleted; the Sandbox it controls is.
        assertThat(dispatcher.deletesOf(ns, "sandboxclaims", "retain")).isEmpty();
        assertThat(dispatcher.deletesOf(ns, "sandboxes", "retain")).isNotEmpty();
        SandboxClaim kept = getClaim(ns, "retain");
        assertThat(kept.getMetadata().getDeletionTimestamp()).isNull();
    }
}
