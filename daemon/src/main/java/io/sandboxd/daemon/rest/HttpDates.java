package io.sandboxd.daemon.rest;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.Locale;

/** IMF-fixdate (RFC 9110 §5.6.7) and RFC 3339 timestamps. */
final class HttpDates {
    private static final DateTimeFormatter IMF = DateTimeFormatter.ofPattern(
                    "EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US)
            .withZone(ZoneOffset.UTC);

    private HttpDates() {}

    static String format(Instant t) {
        return IMF.format(t);
    }

    /** @return null when absent or unparsable (then the header is ignored, as RFC 9110 says) */
    static Instant parse(String s) {
        if (s == null) {
            return null;
        }
        try {
            return ZonedDateTime.parse(s.trim(), DateTimeFormatter.RFC_1123_DATE_TIME)
                    .toInstant();
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    /** RFC 3339, UTC, whole seconds, {@code Z}: what both SDKs parse (runtime-contract §2.3). */
    static String rfc3339(Instant t) {
        return DateTimeFormatter.ISO_INSTANT.format(t.truncatedTo(ChronoUnit.SECONDS));
    }
}
