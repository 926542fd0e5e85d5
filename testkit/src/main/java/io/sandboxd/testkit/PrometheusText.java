package io.sandboxd.testkit;

import java.util.Set;
import java.util.TreeSet;

/** Reading a Prometheus text exposition (what a {@code /metrics} endpoint answers) in tests. */
public final class PrometheusText {
    private PrometheusText() {}

    /** Metric families ({@code # TYPE} lines) and sample names of {@code exposition}. */
    public static Set<String> names(String exposition) {
        Set<String> names = new TreeSet<>();
        for (String line : exposition.split("\n")) {
            if (line.startsWith("# TYPE ")) {
                names.add(line.split(" ")[2]);
            } else if (!line.isEmpty() && !line.startsWith("#")) {
                names.add(line.split("[{ ]", 2)[0]);
            }
        }
        return names;
    }
}
