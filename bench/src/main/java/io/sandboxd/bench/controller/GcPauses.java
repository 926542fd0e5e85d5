package io.sandboxd.bench.controller;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * The controller's stop-the-world GC pauses, from the histogram its /metrics publishes ({@code
 * jvm_gc_pause_seconds}, summed over collectors and causes). Every claim in flight waits out a
 * pause, so pauses longer than the latency target show here before they show in a percentile: a
 * full collection that falls between two bursts is missed by their p99 but not by these counts.
 */
record GcPauses(long count, double seconds, TreeMap<Double, Long> atMost) {
    private static final String PREFIX = "jvm_gc_pause_seconds_";

    /** Reads the histogram from Prometheus text; none yet (no collection so far) reads as zero pauses. */
    static GcPauses parse(String prometheusText) {
        long count = 0;
        double seconds = 0;
        TreeMap<Double, Long> atMost = new TreeMap<>();
        for (String line : prometheusText.split("\n")) {
            if (!line.startsWith(PREFIX)) continue;
            double v = Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            if (line.startsWith(PREFIX + "count{")) {
                count += (long) v;
            } else if (line.startsWith(PREFIX + "sum{")) {
                seconds += v;
            } else if (line.startsWith(PREFIX + "bucket{")) {
                int at = line.indexOf("le=\"") + 4;
                String le = line.substring(at, line.indexOf('"', at));
                if (!le.equals("+Inf")) atMost.merge(Double.parseDouble(le), (long) v, Long::sum);
            }
        }
        return new GcPauses(count, seconds, atMost);
    }

    /** The pauses between {@code earlier} and this reading. */
    GcPauses since(GcPauses earlier) {
        TreeMap<Double, Long> diff = new TreeMap<>();
        atMost.forEach((le, n) -> diff.put(le, n - earlier.atMost.getOrDefault(le, 0L)));
        return new GcPauses(count - earlier.count, seconds - earlier.seconds, diff);
    }

    /** Pauses longer than {@code bucketSeconds} (one of the histogram's bounds). */
    long longerThan(double bucketSeconds) {
        Long within = atMost.get(bucketSeconds);
        if (within == null && count > 0) {
            throw new IllegalStateException("the controller's jvm_gc_pause_seconds has no bucket le=" + bucketSeconds
                    + " (buckets: " + atMost.keySet() + ")");
        }
        return count - (within == null ? 0 : within);
    }

    /** The smallest bucket bound no pause exceeded, in ms (0 without pauses; infinite past the last bound). */
    double longestAtMostMs() {
        if (count == 0) return 0;
        for (Map.Entry<Double, Long> e : atMost.entrySet()) {
            if (e.getValue() == count) return e.getKey() * 1000;
        }
        return Double.POSITIVE_INFINITY;
    }

    Map<String, Object> json() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("count", count);
        m.put("total_ms", BurstFigures.round(seconds * 1000));
        if (count > 0 && atMost.isEmpty()) {
            // a controller that publishes the pauses without buckets (one built before they were added)
            m.put("buckets", "none in the controller's /metrics");
            return m;
        }
        m.put("longer_than_10ms", longerThan(0.01));
        m.put("longer_than_20ms", longerThan(0.02));
        m.put("longer_than_100ms", longerThan(0.1));
        m.put("longest_at_most_ms", longestAtMostMs());
        return m;
    }
}
