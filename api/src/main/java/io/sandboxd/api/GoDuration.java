package io.sandboxd.api;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Durations spelled the way upstream's Go flags spell them ({@code 10s}, {@code 1m30s},
 * {@code 500ms}, {@code 1.5s}, {@code 0}): the one grammar the daemon's flags, the CLI, the tools
 * and the tests share, so that a manifest written for upstream keeps working everywhere.
 */
public final class GoDuration {
    private static final Pattern PART = Pattern.compile("(\\d+(?:\\.\\d+)?)(ns|us|µs|ms|s|m|h)");

    private GoDuration() {}

    /**
     * @throws IllegalArgumentException naming the text and the expected form when it is not a
     *     non-negative Go duration
     */
    public static Duration parse(String text) {
        String v = text == null ? "" : text.trim();
        if (v.equals("0")) {
            return Duration.ZERO;
        }
        Matcher m = PART.matcher(v);
        int pos = 0;
        BigDecimal nanos = BigDecimal.ZERO;
        while (pos < v.length() && m.find(pos) && m.start() == pos) {
            nanos = nanos.add(new BigDecimal(m.group(1)).multiply(BigDecimal.valueOf(unitNanos(m.group(2)))));
            pos = m.end();
        }
        if (pos == 0 || pos != v.length()) {
            throw new IllegalArgumentException("invalid duration \"" + text + "\" (expected e.g. 10s, 500ms, 1m30s)");
        }
        try {
            return Duration.ofNanos(nanos.setScale(0, RoundingMode.DOWN).longValueExact());
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException("duration \"" + text + "\" is out of range");
        }
    }

    private static long unitNanos(String unit) {
        return switch (unit) {
            case "ns" -> 1L;
            case "us", "µs" -> 1_000L;
            case "ms" -> 1_000_000L;
            case "s" -> 1_000_000_000L;
            case "m" -> 60_000_000_000L;
            default -> 3_600_000_000_000L;
        };
    }
}
