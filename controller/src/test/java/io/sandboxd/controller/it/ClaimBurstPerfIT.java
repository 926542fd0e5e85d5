package io.sandboxd.controller.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.sandboxd.controller.model.SandboxClaim;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Measurement, not a CI gate (too slow for the module's time budget): a burst of 300 claims
 * against a Ready pool of 300. Run with -Dsandboxd.perf=true.
 */
@EnabledIfSystemProperty(named = "sandboxd.perf", matches = "true")
class ClaimBurstPerfIT extends HarnessTestBase {
    @Test
    void burstOf300WarmClaims() throws Exception {
        String ns = ControllerHarness.namespace("burst");
        h.kubelet.auto(ns);
        client.resource(ExtensionsIT.template(ns, "tpl")).create();
        var pool = ExtensionsIT.pool(ns, "pool", "tpl", 300);
        client.resource(pool).create();
        long p0 = System.nanoTime();
        ExtensionsIT helper = new ExtensionsIT();
        Await.until("pool 300 ready", Duration.ofSeconds(300), 1000, () -> {
            var p = client.resources(io.sandboxd.controller.model.SandboxWarmPool.class)
                    .inNamespace(ns)
                    .withName("pool")
                    .get();
            return p.getStatus() != null
                    && Integer.valueOf(300).equals(p.getStatus().getReadyReplicas());
        });
        System.out.printf("BURST: pool 0 -> 300 Ready in %.1f s%n", (System.nanoTime() - p0) / 1e9);
        // Replenishment runs during the burst, as it would in a cluster.
        try (ExtensionsIT.BindWatcher w = new ExtensionsIT.BindWatcher(client, ns)) {
            long t0 = System.nanoTime();
            List<String> names = helper.createClaimsWith(client, ns, "b", 300, "pool", w);
            Await.until("300 bound", Duration.ofSeconds(300), 250, () -> w.bound
                    .keySet()
                    .containsAll(names));
            double secs = (System.nanoTime() - t0) / 1e9;
            List<Double> lat = w.latenciesMs(Set.copyOf(names));
            System.out.printf(
                    "BURST: 300 claims bound in %.2f s = %.1f claims/s; claim-to-bound p50=%.0f ms p99=%.0f ms%n",
                    secs, 300 / secs, ExtensionsIT.pct(lat, 0.5), ExtensionsIT.pct(lat, 0.99));
            long warm = client.resources(SandboxClaim.class).inNamespace(ns).list().getItems().stream()
                    .filter(c ->
                            !ExtensionsIT.boundName(c).equals(c.getMetadata().getName()))
                    .count();
            System.out.printf("BURST: %d of 300 warm%n", warm);
            assertThat(warm).isGreaterThan(0);
        }
    }
}
