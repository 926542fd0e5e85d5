package io.sandboxd.bench.controller;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class OwnGcPausesTest {
    @Test
    void countsThePauseBeansOfEveryCollectorAndNotTheirConcurrentCycles() {
        assertThat(OwnGcPauses.pause("G1 Young Generation")).isTrue();
        assertThat(OwnGcPauses.pause("G1 Old Generation")).isTrue();
        assertThat(OwnGcPauses.pause("Shenandoah Pauses")).isTrue();
        assertThat(OwnGcPauses.pause("ZGC Pauses")).isTrue();
        assertThat(OwnGcPauses.pause("ZGC Minor Pauses")).isTrue();
        assertThat(OwnGcPauses.pause("Copy")).isTrue();
        assertThat(OwnGcPauses.pause("G1 Concurrent GC")).isFalse();
        assertThat(OwnGcPauses.pause("Shenandoah Cycles")).isFalse();
        assertThat(OwnGcPauses.pause("ZGC Major Cycles")).isFalse();
    }

    @Test
    void recordsTheCollectionsThisJvmPausesForWhileOpen() throws InterruptedException {
        try (OwnGcPauses pauses = new OwnGcPauses()) {
            assertThat(pauses.json()).containsEntry("count", 0L);
            System.gc(); // a full, stop-the-world collection with the test JVM's collector
            long deadline = System.nanoTime() + 10_000_000_000L;
            while ((long) pauses.json().get("count") == 0 && System.nanoTime() < deadline) {
                Thread.sleep(10); // the JVM notifies from a thread of its own
            }
            Map<String, Object> m = pauses.json();
            assertThat((long) m.get("count")).isGreaterThanOrEqualTo(1);
            assertThat((long) m.get("longest_ms")).isLessThanOrEqualTo((long) m.get("total_ms"));
            assertThat((String) m.get("collector")).isNotBlank();
        }
    }
}
