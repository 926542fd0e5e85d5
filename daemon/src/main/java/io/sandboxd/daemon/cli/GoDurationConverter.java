package io.sandboxd.daemon.cli;

import picocli.CommandLine;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses durations the way upstream's Go flags spell them ({@code 10s}, {@code 1m30s},
 * {@code 500ms}, {@code 1.5s}), so existing manifests keep working.
 */
public final class GoDurationConverter implements CommandLine.ITypeConverter<Duration> {
    private static final Pattern PART = Pattern.compile("(\\d+(?:\\.\\d+)?)(ns|us|µs|ms|s|m|h)");

    @Override
    public Duration convert(String value) {
        return parse(value);
    }

    public static Duration parse(String value) {
        String v = value == null ? "" : value.trim();
        if (v.equals("0")) {
            return Duration.ZERO;
        }
        Matcher m = PART.matcher(v);
        int pos = 0;
        double nanos = 0;
        while (pos < v.length() && m.find(pos) && m.start() == pos) {
            double n = Double.parseDouble(m.group(1));
            nanos += n * switch (m.group(2)) {
                case "ns" -> 1L;
                case "us", "µs" -> 1_000L;
                case "ms" -> 1_000_000L;
                case "s" -> 1_000_000_000L;
                case "m" -> 60_000_000_000L;
                default -> 3_600_000_000_000L;
            };
            pos = m.end();
        }
        if (pos == 0 || pos != v.length()) {
            throw new CommandLine.TypeConversionException(
                    "invalid duration \"" + value + "\" (expected e.g. 10s, 500ms, 1m30s)");
        }
        return Duration.ofNanos((long) nanos);
    }
}
