package io.sandboxd.controller.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.sandboxd.controller.core.SandboxConditions;
import io.sandboxd.controller.model.Conds;
import io.sandboxd.controller.model.Sandbox;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** 200 Sandboxes created at once all reach Ready once the fake kubelet marks their Pods Ready. */
class SandboxScaleIT extends HarnessTestBase {
    @Test
    void twoHundredSandboxesAtOnceAllBecomeReady() throws Exception {
        String ns = ControllerHarness.namespace("scale");
        h.kubelet.auto(ns);
        int n = 200;
        ExecutorService pool = Executors.newFixedThreadPool(8);
        long t0 = System.nanoTime();
        List<Future<?>> fs = new java.util.ArrayList<>();
        for (int i = 0; i < n; i++) {
            int k = i;
            fs.add(pool.submit(() ->
                    client.resource(ControllerHarness.sandbox(ns, "sb-" + k)).create()));
        }
        for (Future<?> f : fs) f.get();
        pool.shutdown();
        Await.until("all " + n + " Ready", Duration.ofSeconds(150), 500, () -> readyCount(ns) == n);
        double secs = (System.nanoTime() - t0) / 1e9;
        System.out.printf(
                "SCALE: %d Sandboxes created -> Ready in %.2f s = %.1f Sandboxes/s (mock server, fake kubelet)%n",
                n, secs, n / secs);
        assertThat(client.pods().inNamespace(ns).list().getItems()).hasSize(n);
        assertThat(h.kubelet.podsStarted.get()).isGreaterThanOrEqualTo(n);
    }

    private long readyCount(String ns) {
        return client.resources(Sandbox.class).inNamespace(ns).list().getItems().stream()
                .filter(s ->
                        s.getStatus() != null && Conds.isTrue(s.getStatus().getConditions(), SandboxConditions.READY))
                .count();
    }
}
