package io.sandboxd.bench;

import java.util.Arrays;

/** Median and p99 (nearest rank) of a sample set. */
record Stats(int n, double p50, double p99, double min, double max) {

    static Stats of(double[] values) {
        if (values.length == 0) {
            throw new IllegalArgumentException("no samples");
        }
        double[] s = values.clone();
        Arrays.sort(s);
        return new Stats(s.length, rank(s, 0.50), rank(s, 0.99), s[0], s[s.length - 1]);
    }

    /** For rates: the "p99" is the slow tail, i.e. the 1st percentile of the per-run rates. */
    static Stats ofRates(double[] rates) {
        double[] s = rates.clone();
        Arrays.sort(s);
        return new Stats(s.length, rank(s, 0.50), rank(s, 0.01), s[0], s[s.length - 1]);
    }

    private static double rank(double[] sorted, double q) {
        int idx = (int) Math.ceil(q * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, idx))];
    }
}
