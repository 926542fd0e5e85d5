package io.sandboxd.controller.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ControllerMetersTest {
    /**
     * A collection the test asks for is published with the pause buckets, so /metrics tells a young
     * pause from a full collection. (The JVM reports pauses asynchronously: polled.)
     */
    @Test
    void gcPausesArePublishedWithTheirBuckets() throws Exception {
        PrometheusMeterRegistry registry = ControllerMeters.prometheus();
        String scraped = "";
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!scraped.contains("jvm_gc_pause_seconds_bucket") && System.nanoTime() < deadline) {
            System.gc();
            Thread.sleep(100);
            scraped = registry.scrape();
        }
        for (Duration bucket : ControllerMeters.GC_PAUSE_BUCKETS) {
            String le = "le=\"" + bucket.toNanos() / 1e9 + "\"";
            assertThat(scraped).as("bucket " + bucket).containsPattern("jvm_gc_pause_seconds_bucket\\{[^}]*" + le);
        }
    }
}
