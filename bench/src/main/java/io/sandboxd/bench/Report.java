package io.sandboxd.bench;

import com.google.gson.GsonBuilder;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The result: a table for people, JSON for machines, and the regression comparison. */
final class Report {
    private final List<Metric> metrics;
    private final Map<String, String> failures;
    private final Map<String, Object> info;

    Report(List<Metric> metrics, Map<String, String> failures, Map<String, Object> info) {
        this.metrics = metrics;
        this.failures = failures;
        this.info = info;
    }

    List<Metric> metrics() {
        return metrics;
    }

    void print(PrintStream out) {
        out.println();
        String fmt = "%-26s %-7s %10s %10s  %-18s %10s %10s %8s  %-22s %s%n";
        out.printf(fmt, "metric", "unit", "p50", "p99", "baseline", "base p50", "base p99", "ratio", "target", "ok");
        out.println("-".repeat(140));
        for (Metric m : metrics) {
            out.printf(
                    fmt,
                    m.name,
                    m.unit,
                    num(m.stats.p50()),
                    num(m.stats.p99()),
                    m.baselineName == null ? "" : m.baselineName,
                    m.baseline == null ? "" : num(m.baseline.p50()),
                    m.baseline == null ? "" : num(m.baseline.p99()),
                    m.ratio == null ? "" : String.format(Locale.ROOT, "%.3f", m.ratio),
                    m.targetText == null ? "" : m.targetText,
                    m.met == null ? "" : m.met ? "MET" : "MISSED");
            if (m.note != null) {
                out.printf("    %s (n=%d)%n", m.note, m.stats.n());
            }
        }
        for (Map.Entry<String, String> f : failures.entrySet()) {
            out.printf("FAILED %s: %s%n", f.getKey(), f.getValue());
        }
        info.forEach((k, v) -> out.printf("  %s: %s%n", k, v));
        out.println("Rates (MB/s, ops/s, rt/s): the p99 column is the slowest run's tail (1st percentile).");
    }

    void writeJson(Path file) throws IOException {
        JsonObject root = new JsonObject();
        root.addProperty("tool", "sandboxd-bench");
        root.addProperty("timestamp", Instant.now().toString());
        JsonObject inf = new JsonObject();
        info.forEach((k, v) -> {
            if (v instanceof Number n) {
                inf.addProperty(k, n);
            } else if (v instanceof Boolean b) {
                inf.addProperty(k, b);
            } else {
                inf.addProperty(k, String.valueOf(v));
            }
        });
        root.add("info", inf);
        JsonArray arr = new JsonArray();
        for (Metric m : metrics) {
            JsonObject j = new JsonObject();
            j.addProperty("name", m.name);
            j.addProperty("unit", m.unit);
            j.addProperty("n", m.stats.n());
            j.addProperty("p50", m.stats.p50());
            j.addProperty("p99", m.stats.p99());
            j.addProperty("min", m.stats.min());
            j.addProperty("max", m.stats.max());
            if (m.baseline != null) {
                j.addProperty("baseline", m.baselineName);
                j.addProperty("baseline_p50", m.baseline.p50());
                j.addProperty("baseline_p99", m.baseline.p99());
            }
            if (m.ratio != null) {
                j.addProperty("ratio", m.ratio);
            }
            j.addProperty("better", m.better.name().toLowerCase(Locale.ROOT));
            if (m.target != null) {
                j.addProperty("target", m.target);
            }
            if (m.targetText != null) {
                j.addProperty("target_text", m.targetText);
            }
            if (m.met != null) {
                j.addProperty("met", m.met);
            }
            j.addProperty("guarded", m.guarded);
            Double cost = m.cost();
            if (cost != null) {
                j.addProperty("cost", cost);
            }
            if (m.note != null) {
                j.addProperty("note", m.note);
            }
            arr.add(j);
        }
        root.add("metrics", arr);
        JsonObject f = new JsonObject();
        failures.forEach(f::addProperty);
        root.add("failures", f);
        if (file.getParent() != null) {
            Files.createDirectories(file.getParent());
        }
        Files.writeString(file, new GsonBuilder().setPrettyPrinting().create().toJson(root) + "\n");
    }

    /** name → cost of the guarded metrics in a JSON file written by {@link #writeJson}. */
    static Map<String, Double> readCosts(Path file) throws IOException {
        Map<String, Double> costs = new LinkedHashMap<>();
        JsonObject root = JsonParser.parseString(Files.readString(file)).getAsJsonObject();
        for (JsonElement e : root.getAsJsonArray("metrics")) {
            JsonObject j = e.getAsJsonObject();
            if (j.has("cost") && (!j.has("guarded") || j.get("guarded").getAsBoolean())) {
                costs.put(j.get("name").getAsString(), j.get("cost").getAsDouble());
            }
        }
        return costs;
    }

    /**
     * Problems: a section that failed, a correctness check that failed, a guarded metric of the
     * baseline that is missing now, or whose cost grew by more than {@code max}.
     */
    List<String> compare(Map<String, Double> baseline, double max) {
        List<String> problems = new ArrayList<>();
        failures.forEach((k, v) -> problems.add("section " + k + " failed: " + v));
        Map<String, Metric> now = new LinkedHashMap<>();
        for (Metric m : metrics) {
            now.put(m.name, m);
            if (m.cost() == null && Boolean.FALSE.equals(m.met)) {
                problems.add(m.name + ": " + m.targetText + " not met (" + m.note + ")");
            }
        }
        baseline.forEach((name, baseCost) -> {
            Metric m = now.get(name);
            if (m == null) {
                problems.add(name + ": in the baseline but not measured now");
                return;
            }
            Double cost = m.cost();
            if (!m.guarded || cost == null) {
                return;
            }
            double factor = cost / baseCost;
            if (factor > max) {
                problems.add(String.format(
                        Locale.ROOT,
                        "%s: guard cost %.3f vs baseline cost %.3f -> %.2fx worse (limit %.1fx)",
                        name,
                        cost,
                        baseCost,
                        factor,
                        max));
            }
        });
        return problems;
    }

    /** Sections whose guarded metrics regressed beyond {@code max} (section failures are not retried). */
    java.util.Set<String> sectionsToRemeasure(Map<String, Double> baseline, double max) {
        java.util.Set<String> out = new java.util.TreeSet<>();
        if (!failures.isEmpty()) {
            return out;
        }
        for (Metric m : metrics) {
            Double base = baseline.get(m.name);
            Double cost = m.cost();
            if (base != null
                    && cost != null
                    && m.guarded
                    && cost / base > max
                    && m.section != null
                    && BenchOptions.SECTIONS.contains(m.section)) {
                out.add(m.section);
            }
        }
        return out;
    }

    /** Per metric the better (lower-cost) of two runs; metrics only in this run are kept. */
    Report bestOf(Report other) {
        Map<String, Metric> byName = new LinkedHashMap<>();
        for (Metric m : other.metrics) {
            byName.put(m.name, m);
        }
        List<Metric> merged = new ArrayList<>();
        for (Metric m : metrics) {
            Metric o = byName.get(m.name);
            boolean takeOther = o != null && o.cost() != null && (m.cost() == null || o.cost() < m.cost());
            merged.add(takeOther ? o : m);
        }
        Map<String, String> f = new LinkedHashMap<>(failures);
        other.failures.forEach((k, v) -> f.put("re-run " + k, v));
        Map<String, Object> i = new LinkedHashMap<>(info);
        i.put("re_measured", other.metrics.stream().map(x -> x.name).toList().toString());
        return new Report(merged, f, i);
    }

    private static String num(double v) {
        if (Double.isNaN(v)) {
            return "-";
        }
        double a = Math.abs(v);
        if (a >= 1000) {
            return String.format(Locale.ROOT, "%.0f", v);
        }
        if (a >= 10) {
            return String.format(Locale.ROOT, "%.1f", v);
        }
        return String.format(Locale.ROOT, "%.3f", v);
    }
}
