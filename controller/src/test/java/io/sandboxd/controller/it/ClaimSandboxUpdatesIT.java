package io.sandboxd.controller.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.sandboxd.controller.app.Controllers;
import io.sandboxd.controller.core.Keys;
import io.sandboxd.controller.model.Conds;
import io.sandboxd.controller.model.Sandbox;
import io.sandboxd.controller.model.SandboxClaim;
import io.sandboxd.controller.model.SandboxWarmPool;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The Sandbox controller's status writes that change nothing the claim reconcile reads set off no
 * claim reconcile ({@code ClaimSandboxChanges}); one that does is still seen; and the echo of a
 * claim's own adoption sets off none ({@code RecentWrites}); nor does a pool's status write, which
 * no claim reads. Its own harness: the checks count every claim reconcile of the controller.
 */
class ClaimSandboxUpdatesIT extends HarnessTestBase {
    @Test
    void sandboxStatusWritesTheClaimDoesNotReadDoNotReconcileItAReadyChangeDoes() throws Exception {
        String ns = ControllerHarness.namespace("claim");
        h.kubelet.auto(ns);
        client.resource(ExtensionsIT.template(ns, "tpl")).create();
        client.resource(ExtensionsIT.pool(ns, "p", "tpl", 0)).create();
        client.resource(ExtensionsIT.claim(ns, "c", "p")).create();
        Await.until("claim Ready", () -> "DependenciesReady".equals(claimReadyReason(ns, "c")));
        double settled = claimReconcilesWhenQuiet();

        // The claim's cold Sandbox has the claim's name. Each write of its node name is followed by
        // the Sandbox controller's own write putting the Pod's back: six updates the claim ignores.
        for (int i = 1; i <= 3; i++) {
            client.resources(Sandbox.class)
                    .inNamespace(ns)
                    .withName("c")
                    .subresource("status")
                    .patch(
                            PatchContext.of(PatchType.JSON),
                            "[{\"op\":\"replace\",\"path\":\"/status/nodeName\",\"value\":\"node-" + (i + 1) + "\"}]");
            Await.until("node name restored", () -> "node-1"
                    .equals(h.get(ns, "c").getStatus().getNodeName()));
        }
        h.kubelet.setPhase(ns, "c", "Running"); // Ready=False, no pod IPs
        Await.until("claim not Ready", () -> "DependenciesNotReady".equals(claimReadyReason(ns, "c")));
        // One reconcile for the Ready change; its own status write's echo sets off none, even when
        // it overtakes the write's response (OwnStatusEchoes). Without the filter each ignored
        // update is one more.
        assertThat(h.reconcilesStarted(Controllers.CLAIM))
                .as("claim reconciles for six Sandbox status writes it does not read and one Ready change")
                .isEqualTo(settled + 1);
    }

    @Test
    void aWarmClaimIsReconciledOnceTheEchoOfItsAdoptionSetsOffNone() throws Exception {
        String ns = ControllerHarness.namespace("echo");
        int n = 20;
        h.kubelet.auto(ns);
        client.resource(ExtensionsIT.template(ns, "tpl")).create();
        client.resource(ExtensionsIT.pool(ns, "p", "tpl", n)).create();
        Await.until("pool Ready", Duration.ofSeconds(60), 50, () -> ExtensionsIT.poolReady(ns, "p", n));
        double settled = claimReconcilesWhenQuiet();

        for (int i = 0; i < n; i++)
            client.resource(ExtensionsIT.claim(ns, "c-" + i, "p")).create();
        Await.until("claims Ready", Duration.ofSeconds(60), 50, () -> {
            for (int i = 0; i < n; i++) if (!"DependenciesReady".equals(claimReadyReason(ns, "c-" + i))) return false;
            return true;
        });
        Thread.sleep(1500);
        for (int i = 0; i < n; i++) {
            String bound = client.resources(SandboxClaim.class)
                    .inNamespace(ns)
                    .withName("c-" + i)
                    .get()
                    .getStatus()
                    .getSandbox()
                    .getName();
            assertThat(h.get(ns, bound).getMetadata().getLabels()).containsEntry(Keys.LAUNCH_TYPE, "warm");
        }
        // One pass each adopts and writes the claim's status. The adoption's echo changes the Sandbox's
        // owner, which the claim reads, so without the echo skip every claim is reconciled twice. A
        // pool event reaching a claim before its status write's echo may add one now and then.
        assertThat(h.reconcilesStarted(Controllers.CLAIM) - settled)
                .as("claim reconciles for %d warm claims", n)
                .isBetween((double) n, 1.5 * n);
    }

    @Test
    void aPoolsStatusWritesSetOffNoReconcileOfItsUnboundClaimsASpecChangeDoes() throws Exception {
        String ns = ControllerHarness.namespace("poolstatus");
        // No template: the claim stays unbound, and unbound claims are the ones a pool event reaches.
        client.resource(ExtensionsIT.pool(ns, "p", "missing", 0)).create();
        client.resource(ExtensionsIT.claim(ns, "c", "p")).create();
        Await.until("claim waits for its template", () -> "TemplateNotFound".equals(claimReadyReason(ns, "c")));
        double settled = claimReconcilesWhenQuiet();

        for (int i = 1; i <= 3; i++) {
            int replicas = i;
            client.resources(SandboxWarmPool.class)
                    .inNamespace(ns)
                    .withName("p")
                    .subresource("status")
                    .patch(
                            PatchContext.of(PatchType.JSON),
                            "[{\"op\":\"add\",\"path\":\"/status\",\"value\":{\"replicas\":" + replicas + "}}]");
            // The pool controller writes its own status back over ours.
            Await.until("pool status restored", () -> ExtensionsIT.poolReady(ns, "p", 0));
        }
        assertThat(claimReconcilesWhenQuiet())
                .as("claim reconciles for six pool status writes")
                .isEqualTo(settled);

        client.resources(SandboxWarmPool.class).inNamespace(ns).withName("p").edit(p -> {
            p.getMetadata().setLabels(Map.of("team", "a"));
            return p;
        });
        Await.until("claim reconciled for the pool's label", () -> h.reconcilesStarted(Controllers.CLAIM) > settled);
        assertThat(claimReconcilesWhenQuiet())
                .as("claim reconciles for one pool label change")
                .isEqualTo(settled + 1);
    }

    /** Claim reconciles started, read once the events still in flight have arrived (milliseconds here). */
    private static double claimReconcilesWhenQuiet() throws InterruptedException {
        Thread.sleep(1500);
        return h.reconcilesStarted(Controllers.CLAIM);
    }

    private static String claimReadyReason(String ns, String name) {
        SandboxClaim c = client.resources(SandboxClaim.class)
                .inNamespace(ns)
                .withName(name)
                .get();
        Condition r = c == null || c.getStatus() == null
                ? null
                : Conds.find(c.getStatus().getConditions(), "Ready");
        return r == null ? null : r.getReason();
    }
}
