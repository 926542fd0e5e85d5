package io.sandboxd.conformance.report;

import io.sandboxd.conformance.suite.CheckResult;

/** The stdout format: one line per check, then the totals. */
public final class ConsoleReport {
    private ConsoleReport() {}

    public static String line(CheckResult r) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(
                "%-4s %-15s %-11s §%-4s %s",
                r.outcome().name(), r.id().id(), r.id().level().label(), r.id().section(), r.id().statement()));
        if (!r.message().isEmpty()) {
            sb.append(" -- ").append(r.message().replace('\n', ' '));
        }
        sb.append(String.format(" (%d ms)", r.duration().toMillis()));
        return sb.toString();
    }
}
