package io.sandboxd.controller.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.sandboxd.controller.app.Controllers;
import org.junit.jupiter.api.Test;

/**
 * A kubelet's status updates that change nothing the Sandbox reconcile reads set off no reconcile
 * ({@code SandboxPodChanges}); one that does is still seen. Its own harness: the check counts every
 * Sandbox reconcile of the controller.
 */
class KubeletStatusUpdatesIT extends HarnessTestBase {
    @Test
    void containerStatusUpdatesDoNotReconcileTheSandboxAReadyChangeDoes() throws Exception {
        String ns = ControllerHarness.namespace("kubelet");
        h.kubelet.auto(ns);
        client.resource(ControllerHarness.sandbox(ns, "quiet")).create();
        Await.until("Ready=True", () -> h.hasCondition(ns, "quiet", "Ready", "True", "DependenciesReady"));
        Thread.sleep(1500);
        double settled = h.reconcilesStarted(Controllers.SANDBOX);

        for (int restarts = 1; restarts <= 3; restarts++) {
            patchPodStatus(
                    ns,
                    "quiet",
                    "[{\"op\":\"add\",\"path\":\"/status/hostIP\",\"value\":\"192.168.0." + restarts + "\"},"
                            + "{\"op\":\"add\",\"path\":\"/status/containerStatuses\",\"value\":[{\"name\":\"main\","
                            + "\"ready\":true,\"started\":true,\"restartCount\":" + restarts + "}]}]");
        }
        // The Ready condition's change comes after them on the same watch: once the Sandbox shows
        // it, the three updates before it have been through the controller's event source.
        patchPodStatus(
                ns,
                "quiet",
                "[{\"op\":\"replace\",\"path\":\"/status/conditions\",\"value\":["
                        + "{\"type\":\"PodScheduled\",\"status\":\"True\"},"
                        + "{\"type\":\"Ready\",\"status\":\"False\",\"reason\":\"ContainersNotReady\"}]}]");
        Await.until("Ready=False", () -> h.hasCondition(ns, "quiet", "Ready", "False", "DependenciesNotReady"));
        assertThat(h.condition(ns, "quiet", "Ready").getMessage()).isEqualTo("Pod is Running but not Ready");
        // One reconcile for the Ready change; its own status write's echo sets off none, even when
        // it overtakes the write's response (OwnStatusEchoes). Without the filter each ignored
        // update is one more.
        assertThat(h.reconcilesStarted(Controllers.SANDBOX))
                .as("Sandbox reconciles for three container-status updates and one Ready change")
                .isEqualTo(settled + 1);
    }

    private static void patchPodStatus(String ns, String name, String jsonPatch) {
        client.pods().inNamespace(ns).withName(name).status().patch(PatchContext.of(PatchType.JSON), jsonPatch);
    }
}
