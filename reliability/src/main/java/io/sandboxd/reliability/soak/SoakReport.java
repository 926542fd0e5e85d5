package io.sandboxd.reliability.soak;

import io.sandboxd.testkit.proc.ResourceSnapshot;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/** The outcome of a soak: load served, wrong answers, resources before/peak/after, and verdict. */
public record SoakReport(
        Duration loadDuration,
        int clients,
        long requests,
        long errors,
        Map<String, Long> ops,
        List<String> firstErrors,
        Optional<ResourceSnapshot> baseline,
        Optional<ResourceSnapshot> peak,
        Optional<ResourceSnapshot> after,
        List<String> resourceFailures) {

    public boolean passed() {
        return errors == 0 && resourceFailures.isEmpty();
    }

    public String render() {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(
                Locale.ROOT,
                "soak: %s with %d clients: %d requests (%.1f/s), %d errors%n",
                loadDuration,
                clients,
                requests,
                requests / Math.max(1.0, loadDuration.toMillis() / 1000.0),
                errors));
        sb.append("operations:");
        ops.forEach((k, v) -> sb.append(' ').append(k).append('=').append(v));
        sb.append('\n');
        baseline.ifPresent(b -> sb.append("baseline: ").append(b.describe()).append('\n'));
        peak.ifPresent(p -> sb.append("peak:     ").append(p.describe()).append('\n'));
        after.ifPresent(a -> sb.append("after:    ").append(a.describe()).append('\n'));
        if (baseline.isEmpty()) {
            sb.append("resources: not observed (no --daemon-pid)\n");
        }
        for (String e : firstErrors) {
            sb.append("error: ").append(e).append('\n');
        }
        for (String f : resourceFailures) {
            sb.append("resource check failed: ").append(f).append('\n');
        }
        sb.append(passed() ? "RESULT: PASS" : "RESULT: FAIL").append('\n');
        return sb.toString();
    }

    /** {@code jvm}: the daemon is a JVM, so its heap after GC must have been measured. */
    static List<String> compare(
            ResourceSnapshot base, ResourceSnapshot peak, ResourceSnapshot after, SoakSettings s, boolean jvm) {
        List<String> out = new ArrayList<>();
        if (after.threads() > base.threads() + s.threadSlack(base)) {
            out.add("threads " + after.threads() + " > baseline " + base.threads() + " + " + s.threadSlack(base));
        }
        if (after.fds() > base.fds() + s.fdTolerance()) {
            out.add("fds " + after.fds() + " > baseline " + base.fds() + " + " + s.fdTolerance());
        }
        if (after.liveDescendants() > base.liveDescendants()) {
            out.add("live child processes " + after.liveDescendants() + " > baseline " + base.liveDescendants());
        }
        if (after.zombies() > 0) {
            out.add(after.zombies() + " zombie children");
        }
        if (base.heapAfterGcBytes().isPresent() && after.heapAfterGcBytes().isPresent()) {
            long b = base.heapAfterGcBytes().getAsLong();
            long allowed = b + Math.max(s.heapToleranceBytes(), b / 5);
            if (after.heapAfterGcBytes().getAsLong() > allowed) {
                out.add(String.format(
                        Locale.ROOT,
                        "heap after GC %.1f MiB > allowed %.1f MiB",
                        after.heapAfterGcBytes().getAsLong() / 1048576.0,
                        allowed / 1048576.0));
            }
        } else if (jvm) {
            out.add("heap after GC could not be measured (jcmd unavailable?)");
        }
        if (peak.rssBytes() > s.maxRssBytes()) {
            out.add(String.format(
                    Locale.ROOT,
                    "peak RSS %.1f MiB > limit %.1f MiB",
                    peak.rssBytes() / 1048576.0,
                    s.maxRssBytes() / 1048576.0));
        }
        return out;
    }

    public String toJson() {
        Map<String, Object> m = new java.util.LinkedHashMap<>();
        m.put("duration_seconds", loadDuration.toSeconds());
        m.put("clients", clients);
        m.put("requests", requests);
        m.put("errors", errors);
        m.put("passed", passed());
        m.put("ops", ops);
        baseline.ifPresent(b -> m.put("baseline", json(b)));
        peak.ifPresent(b -> m.put("peak", json(b)));
        after.ifPresent(b -> m.put("after", json(b)));
        m.put("first_errors", firstErrors);
        m.put("resource_failures", resourceFailures);
        return new tools.jackson.databind.ObjectMapper()
                .writerWithDefaultPrettyPrinter()
                .writeValueAsString(m);
    }

    private static Map<String, Object> json(ResourceSnapshot s) {
        Map<String, Object> m = new java.util.LinkedHashMap<>();
        m.put("threads", s.threads());
        m.put("fds", s.fds());
        m.put("rss_bytes", s.rssBytes());
        m.put("private_dirty_bytes", s.privateDirtyBytes());
        m.put(
                "heap_after_gc_bytes",
                s.heapAfterGcBytes().isPresent() ? s.heapAfterGcBytes().getAsLong() : null);
        m.put("live_children", s.liveDescendants());
        m.put("zombies", s.zombies());
        return m;
    }
}
