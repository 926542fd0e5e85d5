package io.sandboxd.controller.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.sandboxd.controller.app.Controllers;
import io.sandboxd.controller.model.Sandbox;
import org.junit.jupiter.api.Test;

/** Its own class (own controller) so the reconcile counter sees only this Sandbox. */
class InvalidConfigurationIT extends HarnessTestBase {
    @Test
    void serviceNameTooLongIsInvalidConfigurationNotRequeuedAndASpecEditReconcilesAgain() throws Exception {
        String ns = ControllerHarness.namespace("invalid");
        String name = "a".repeat(70); // valid object name (<=253), not a DNS-1035 label (<=63)
        Sandbox sb = ControllerHarness.sandbox(ns, name);
        sb.getSpec().setService(true);
        client.resource(sb).create();
        Await.until("InvalidConfiguration", () -> h.hasCondition(ns, name, "Ready", "False", "InvalidConfiguration"));
        assertThat(h.condition(ns, name, "Ready").getMessage())
                .contains("not a valid Service name")
                .contains("rename the Sandbox or set spec.service to false");
        assertThat(client.pods().inNamespace(ns).list().getItems()).isEmpty();
        assertThat(client.services().inNamespace(ns).list().getItems()).isEmpty();

        // No hot loop: after settling, the reconcile count stays flat (a retry would start at 200 ms).
        Thread.sleep(1500);
        double settled = h.reconcilesStarted(Controllers.SANDBOX);
        String rv = h.get(ns, name).getMetadata().getResourceVersion();
        Thread.sleep(4000);
        assertThat(h.reconcilesStarted(Controllers.SANDBOX)).isEqualTo(settled);
        assertThat(h.get(ns, name).getMetadata().getResourceVersion()).isEqualTo(rv);

        // Editing the spec reconciles again.
        h.patchSandboxSpec(ns, name, "service", false);
        Await.until(
                "pod created after the fix",
                () -> client.pods().inNamespace(ns).withName(name).get() != null);
        Await.until("no longer invalid", () -> h.hasCondition(ns, name, "Ready", "False", "DependenciesNotReady"));
        assertThat(h.reconcilesStarted(Controllers.SANDBOX)).isGreaterThan(settled);
    }
}
