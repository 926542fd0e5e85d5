package io.sandboxd.bench.footprint;

import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The classes a JVM loaded, from its {@code -Xlog:class+load} lines: how many, how many came from
 * a class-data archive (the JDK's or the application's), and how many per library (the group of
 * a class is its package's first two names, three under {@code com.google}, {@code org.eclipse}
 * and {@code io.sandboxd}; the JDK's own packages are one group).
 */
record ClassCounts(int total, int fromArchive, Map<String, Integer> byGroup) {
    private static final Pattern LINE = Pattern.compile("\\[class,load\\s*\\] (\\S+) source: (.*)$", Pattern.MULTILINE);

    static ClassCounts parse(String log) {
        int total = 0;
        int shared = 0;
        Map<String, Integer> groups = new TreeMap<>();
        Matcher m = LINE.matcher(log);
        while (m.find()) {
            total++;
            if (m.group(2).startsWith("shared objects file")) {
                shared++;
            }
            groups.merge(group(m.group(1)), 1, Integer::sum);
        }
        Map<String, Integer> sorted = new LinkedHashMap<>();
        groups.entrySet().stream()
                .sorted(Map.Entry.<String, Integer>comparingByValue(Comparator.reverseOrder()))
                .forEach(e -> sorted.put(e.getKey(), e.getValue()));
        return new ClassCounts(total, shared, sorted);
    }

    static String group(String className) {
        if (className.startsWith("java.")
                || className.startsWith("javax.")
                || className.startsWith("jdk.")
                || className.startsWith("sun.")
                || (className.startsWith("com.sun.") && !className.startsWith("com.sun.jna."))) {
            return "JDK";
        }
        String[] parts = className.split("\\.");
        int depth = className.startsWith("com.google.")
                        || className.startsWith("org.eclipse.")
                        || className.startsWith("io.sandboxd.")
                ? 3
                : 2;
        if (parts.length <= depth) {
            return parts.length == 1
                    ? "(default package)"
                    : String.join(".", java.util.Arrays.copyOf(parts, parts.length - 1));
        }
        return String.join(".", java.util.Arrays.copyOf(parts, depth));
    }
}
