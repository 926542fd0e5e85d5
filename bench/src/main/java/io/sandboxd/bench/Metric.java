package io.sandboxd.bench;

/**
 * One row of the report. {@code ratio} compares the figure with a baseline measured in the same
 * run; {@code cost} is the ratio oriented so that bigger is worse, which the regression guard
 * compares against the committed baseline file.
 */
final class Metric {
    enum Better { LOWER, HIGHER }

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
        return this;
    }

    Metric ratio(double r) {
        this.ratio = r;
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

    /** Bigger is worse; null when there is nothing to compare. */
    Double cost() {
        if (ratio == null || ratio <= 0 || ratio.isNaN() || ratio.isInfinite()) {
            return null;
        }
        return better == Better.LOWER ? ratio : 1.0 / ratio;
    }
}
