package io.sandboxd.reliability.soak;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parses Go-style durations such as {@code 60s}, {@code 10m}, {@code 1m30s}, {@code 500ms}. */
public final class GoDuration {
    private static final Pattern PART = Pattern.compile("(\\d+)(ms|h|m|s)");

    private GoDuration() {
    }

    public static Duration parse(String text) {
        String t = text.trim();
        if (t.isEmpty()) {
            throw new IllegalArgumentException("empty duration");
        }
        Matcher m = PART.matcher(t);
        Duration d = Duration.ZERO;
        int pos = 0;
        while (m.find() && m.start() == pos) {
            long n = Long.parseLong(m.group(1));
            d = d.plus(switch (m.group(2)) {
                case "h" -> Duration.ofHours(n);
                case "m" -> Duration.ofMinutes(n);
                case "s" -> Duration.ofSeconds(n);
                default -> Duration.ofMillis(n);
            });
            pos = m.end();
        }
        if (pos != t.length()) {
            throw new IllegalArgumentException("bad duration \"" + text + "\" (use e.g. 60s, 10m, 1m30s)");
        }
        return d;
    }
}
