package io.sandboxd.bench.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class GcPausesTest {
    /** Two collectors' histograms, as Micrometer's Prometheus registry writes them. */
    static String scrape(long youngShort, long youngLong, long full) {
        long young = youngShort + youngLong;
        return String.join(
                "\n",
                "# HELP jvm_gc_pause_seconds Time spent in GC pause",
                "# TYPE jvm_gc_pause_seconds histogram",
                bucket("end of minor GC", "0.01", youngShort),
                bucket("end of minor GC", "0.02", youngShort),
                bucket("end of minor GC", "0.1", young),
                bucket("end of minor GC", "1.0", young),
                bucket("end of minor GC", "+Inf", young),
                "jvm_gc_pause_seconds_count{action=\"end of minor GC\",cause=\"Allocation Failure\",gc=\"Copy\"} "
                        + young,
                "jvm_gc_pause_seconds_sum{action=\"end of minor GC\",cause=\"Allocation Failure\",gc=\"Copy\"} "
                        + (youngShort * 0.005 + youngLong * 0.025),
                bucket("end of major GC", "0.01", 0),
                bucket("end of major GC", "0.02", 0),
                bucket("end of major GC", "0.1", 0),
                bucket("end of major GC", "1.0", full),
                bucket("end of major GC", "+Inf", full),
                "jvm_gc_pause_seconds_count{action=\"end of major GC\",cause=\"Allocation Failure\",gc=\"MarkSweepCompact\"} "
                        + full,
                "jvm_gc_pause_seconds_sum{action=\"end of major GC\",cause=\"Allocation Failure\",gc=\"MarkSweepCompact\"} "
                        + full * 0.25,
                "jvm_gc_pause_seconds_max{action=\"end of major GC\",cause=\"Allocation Failure\",gc=\"MarkSweepCompact\"} 0.25",
                "jvm_memory_used_bytes{area=\"heap\",id=\"Tenured Gen\"} 1.0E8");
    }

    static String bucket(String action, String le, long n) {
        String gc = action.contains("minor") ? "Copy" : "MarkSweepCompact";
        return "jvm_gc_pause_seconds_bucket{action=\"" + action + "\",cause=\"Allocation Failure\",gc=\"" + gc
                + "\",le=\"" + le + "\"} " + n;
    }

    @Test
    void sumsCollectorsAndCountsThePausesPastEachBound() {
        GcPauses p = GcPauses.parse(scrape(10, 3, 1));

        assertThat(p.count()).isEqualTo(14);
        assertThat(p.seconds()).isCloseTo(10 * 0.005 + 3 * 0.025 + 0.25, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(p.longerThan(0.01)).isEqualTo(4);
        assertThat(p.longerThan(0.02)).isEqualTo(4);
        assertThat(p.longerThan(0.1)).isEqualTo(1);
        assertThat(p.longestAtMostMs()).isEqualTo(1000);
    }

    @Test
    void aWindowIsTheDifferenceOfTwoReadings() {
        GcPauses window = GcPauses.parse(scrape(12, 5, 1)).since(GcPauses.parse(scrape(10, 3, 1)));

        assertThat(window.count()).isEqualTo(4);
        assertThat(window.longerThan(0.02)).isEqualTo(2);
        assertThat(window.longerThan(0.1)).isZero();
        assertThat(window.longestAtMostMs()).isEqualTo(100);
        assertThat(window.json()).containsEntry("longer_than_20ms", 2L).containsEntry("longest_at_most_ms", 100.0);
    }

    @Test
    void noCollectionYetIsNoPause() {
        GcPauses none = GcPauses.parse("jvm_memory_used_bytes{area=\"heap\",id=\"Eden\"} 1.0E7\n");

        assertThat(none.count()).isZero();
        assertThat(none.json()).containsEntry("longer_than_20ms", 0L).containsEntry("longest_at_most_ms", 0.0);
    }

    @Test
    void aBoundTheHistogramDoesNotHaveIsNamedInTheError() {
        GcPauses p = GcPauses.parse(scrape(1, 1, 0));

        assertThatThrownBy(() -> p.longerThan(0.05))
                .hasMessageContaining("no bucket le=0.05")
                .hasMessageContaining("[0.01, 0.02, 0.1, 1.0]");
    }

    @Test
    void pausesWithoutBucketsAreCountedAndSaidToHaveNone() {
        GcPauses p = GcPauses.parse("jvm_gc_pause_seconds_count{action=\"end of minor GC\",cause=\"x\",gc=\"Copy\"} 3\n"
                + "jvm_gc_pause_seconds_sum{action=\"end of minor GC\",cause=\"x\",gc=\"Copy\"} 0.06\n");

        assertThat(p.json())
                .containsEntry("count", 3L)
                .containsEntry("buckets", "none in the controller's /metrics")
                .doesNotContainKey("longer_than_20ms");
    }
}
