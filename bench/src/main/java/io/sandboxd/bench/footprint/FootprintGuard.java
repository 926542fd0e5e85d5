package io.sandboxd.bench.footprint;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The footprint figures CI keeps from regressing, each machine-independent: start-up as a ratio
 * to a trivial Java program started with the same JVM options in the same run, cold over warm
 * CPU per Execute, and idle Private_Dirty (memory is not timing noise, so it gets a tighter
 * limit). Lower is better for all three.
 */
final class FootprintGuard {
    static final String STARTUP = "first_execute_over_trivial_java";
    static final String CPU = "cold_over_warm_cpu";
    static final String MEMORY = "idle_private_dirty_mb";

    /** Memory may grow by this factor at most, whatever --max-regression says for the timing ratios. */
    static final double MEMORY_LIMIT = 1.25;

    private FootprintGuard() {}

    static Map<String, Double> figures(double firstExecuteMs, double trivialJavaMs, double coldOverWarm, double pdMb) {
        Map<String, Double> g = new LinkedHashMap<>();
        g.put(STARTUP, firstExecuteMs / trivialJavaMs);
        g.put(CPU, coldOverWarm);
        g.put(MEMORY, pdMb);
        return g;
    }

    /** The "guard" object of a JSON report this mode wrote earlier. */
    static Map<String, Double> read(Path baseline) throws IOException {
        JsonObject g = JsonParser.parseString(Files.readString(baseline))
                .getAsJsonObject()
                .getAsJsonObject("guard");
        if (g == null) {
            throw new IOException(baseline + " has no \"guard\" object (write it with footprint --json)");
        }
        Map<String, Double> out = new LinkedHashMap<>();
        for (String k : List.of(STARTUP, CPU, MEMORY)) {
            if (g.has(k)) {
                out.put(k, g.get(k).getAsDouble());
            }
        }
        return out;
    }

    /** One line per figure worse than the baseline by more than its limit; empty if none. */
    static List<String> compare(Map<String, Double> now, Map<String, Double> base, double maxRegression) {
        List<String> problems = new ArrayList<>();
        for (Map.Entry<String, Double> b : base.entrySet()) {
            Double v = now.get(b.getKey());
            double limit = b.getKey().equals(MEMORY) ? MEMORY_LIMIT : maxRegression;
            if (v == null || v.isNaN()) {
                problems.add(b.getKey() + ": not measured");
            } else if (v > b.getValue() * limit) {
                problems.add(String.format(
                        "%s: %.2f > %.2f x %.2f (baseline %.2f)", b.getKey(), v, b.getValue(), limit, b.getValue()));
            }
        }
        return problems;
    }

    /** Per figure the better (lower) of two runs: a noisy neighbour slows one run, a regression both. */
    static Map<String, Double> bestOf(Map<String, Double> a, Map<String, Double> b) {
        Map<String, Double> out = new LinkedHashMap<>(a);
        b.forEach((k, v) -> out.merge(k, v, Math::min));
        return out;
    }
}
