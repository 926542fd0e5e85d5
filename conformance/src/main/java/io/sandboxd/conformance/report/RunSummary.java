package io.sandboxd.conformance.report;

import io.sandboxd.conformance.suite.CheckResult;
import io.sandboxd.conformance.suite.Outcome;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/** A finished run: what was tested, with which selection, and every result. */
public record RunSummary(
        String grpcTarget,
        String restBase,
        String selection,
        Instant started,
        Duration duration,
        List<CheckResult> results) {

    public long count(Outcome o) {
        return results.stream().filter(r -> r.outcome() == o).count();
    }

    public String line() {
        return count(Outcome.PASS) + " passed, " + count(Outcome.FAIL) + " failed, " + count(Outcome.SKIP) + " skipped";
    }
}
