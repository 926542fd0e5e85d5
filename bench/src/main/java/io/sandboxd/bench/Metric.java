package io.sandboxd.bench;

/**
 * One row of the report. {@code ratio} compares the figure with a baseline measured in the same
 * run; {@code cost} is the ratio oriented so that bigger is worse, which the regression guard
 * compares against the committed baseline file.
 */
final class Metric {
    enum Better {
        LOWER,
        HIGHER
    }

    final String name;
    final String unit;
    final Stats stats;
    String baselineName;
    Stats baseline;
    Double ratio;
    Better better = Better.LOWER;
    Double target;
    String targetText;
    Boolean met;
    boolean guarded = true;
    String note;
    /** The benchmark section that measured it, so a suspected regression can be re-measured alone. */
    String section;

    private boolean bestCaseGuard;

    Metric(String name, String unit, Stats stats) {
        this.name = name;
        this.unit = unit;
        this.stats = stats;
    }

    /** ratio = p50 / baseline p50 (or a caller-chosen ratio), target compared with {@code better}. */
    Metric against(String baselineName, Stats baseline) {
        this.baselineName = baselineName;
        this.baseline = baseline;
        this.ratio = stats.p50() / baseline.p50();
        this.bestCaseGuard = true;
        return this;
    }

    Metric ratio(double r) {
        this.ratio = r;
        this.bestCaseGuard = false;
        return this;
    }

    Metric atMost(double t, String text) {
        this.better = Better.LOWER;
        this.target = t;
        this.targetText = text;
        this.met = ratio != null && ratio <= t;
        return this;
    }

    Metric atLeast(double t, String text) {
        this.better = Better.HIGHER;
        this.target = t;
        this.targetText = text;
        this.met = ratio != null && ratio >= t;
        return this;
    }

    Metric higherIsBetter() {
        this.better = Better.HIGHER;
        return this;
    }

    Metric unguarded() {
        this.guarded = false;
        return this;
    }

    Metric note(String n) {
        this.note = n;
        return this;
    }

    /**
     * What the regression guard compares, bigger is worse; null when there is nothing to compare.
     * Against a same-run baseline it is the best sample against the baseline's best (fastest
     * run vs fastest run): a blocking call, an O(n^2) or a lost flow-control path slows every
     * sample, while a noisy neighbour mostly slows some, so the best case is the most
     * load-robust figure. The table still reports medians and p99s.
     */
    Double cost() {
        double r;
        if (bestCaseGuard && baseline != null) {
            r = better == Better.LOWER ? stats.min() / baseline.min() : stats.max() / baseline.max();
        } else if (ratio != null) {
            r = ratio;
        } else {
            return null;
        }
        if (r <= 0 || Double.isNaN(r) || Double.isInfinite(r)) {
            return null;
        }
        return better == Better.LOWER ? r : 1.0 / r;
    }
}
