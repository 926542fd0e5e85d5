package io.sandboxd.controller.it;

import io.fabric8.kubernetes.client.KubernetesClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * One mock API server + controller per test class (starting one is the slow part). Classes run
 * one after another, so the statics are only ever the current class's harness.
 */
abstract class HarnessTestBase {
    static KubernetesClient client;
    static ControllerHarness h;

    @BeforeAll
    static void startHarness() {
        h = new ControllerHarness();
        client = h.client;
    }

    @AfterAll
    static void stopHarness() {
        h.close();
    }
}
