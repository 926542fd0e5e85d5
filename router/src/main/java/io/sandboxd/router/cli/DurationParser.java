package io.sandboxd.router.cli;

import java.time.Duration;

/** Parses {@code 180}, {@code 180s}, {@code 500ms}, {@code 3m}, {@code 1h} (a bare number is seconds). */
public final class DurationParser {
    private DurationParser() {}

    public static Duration parse(String s) {
        String t = s.trim().toLowerCase(java.util.Locale.ROOT);
        try {
            if (t.endsWith("ms")) {
                return nonNegative(
                        Duration.ofMillis(
                                Long.parseLong(t.substring(0, t.length() - 2).trim())),
                        s);
            }
            if (t.endsWith("s")) {
                return nonNegative(
                        Duration.ofSeconds(
                                Long.parseLong(t.substring(0, t.length() - 1).trim())),
                        s);
            }
            if (t.endsWith("m")) {
                return nonNegative(
                        Duration.ofMinutes(
                                Long.parseLong(t.substring(0, t.length() - 1).trim())),
                        s);
            }
            if (t.endsWith("h")) {
                return nonNegative(
                        Duration.ofHours(
                                Long.parseLong(t.substring(0, t.length() - 1).trim())),
                        s);
            }
            return nonNegative(Duration.ofSeconds(Long.parseLong(t)), s);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("Invalid duration '" + s + "' (use e.g. 180s, 500ms, 3m)");
        }
    }

    private static Duration nonNegative(Duration d, String s) {
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException("Duration must be positive: '" + s + "'");
        }
        return d;
    }
}
