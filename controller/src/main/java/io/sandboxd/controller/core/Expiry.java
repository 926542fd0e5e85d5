package io.sandboxd.controller.core;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.YearMonth;
import java.time.format.DateTimeParseException;

/** shutdownTime handling (§2.8, §2.12). */
public final class Expiry {
    private Expiry() {}

    public static final Duration MIN_REQUEUE = Duration.ofSeconds(2);

    /** An RFC 3339 time, or null when missing or unreadable. */
    public static Instant parse(String rfc3339) {
        if (rfc3339 == null) return null;
        Instant utc = utcSeconds(rfc3339);
        if (utc != null) return utc;
        try {
            return OffsetDateTime.parse(rfc3339).toInstant();
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    /**
     * The form the API server writes its own times in ({@code 2026-12-02T14:21:50Z}: UTC, whole
     * seconds), read without a formatter; null for any other form or an impossible date, which
     * {@link #parse} then leaves to {@link OffsetDateTime#parse}. The warm pool orders its members
     * by creation time, and the formatter was 1 % of a warm burst's CPU samples (issue 23).
     */
    static Instant utcSeconds(String s) {
        if (s.length() != 20
                || s.charAt(4) != '-'
                || s.charAt(7) != '-'
                || s.charAt(10) != 'T'
                || s.charAt(13) != ':'
                || s.charAt(16) != ':'
                || s.charAt(19) != 'Z') {
            return null;
        }
        int year = digits(s, 0, 4);
        int month = digits(s, 5, 2);
        int day = digits(s, 8, 2);
        int hour = digits(s, 11, 2);
        int minute = digits(s, 14, 2);
        int second = digits(s, 17, 2);
        if (year < 0 || month < 1 || month > 12 || day < 1 || hour < 0 || hour > 23) return null;
        if (minute < 0 || minute > 59 || second < 0 || second > 59) return null;
        if (day > YearMonth.of(year, month).lengthOfMonth()) return null;
        long days = LocalDate.of(year, month, day).toEpochDay();
        return Instant.ofEpochSecond(days * 86_400 + hour * 3_600L + minute * 60L + second);
    }

    /** The decimal value of {@code n} ASCII digits at {@code from}, or -1 if one is not a digit. */
    private static int digits(String s, int from, int n) {
        int v = 0;
        for (int i = from; i < from + n; i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') return -1;
            v = v * 10 + (c - '0');
        }
        return v;
    }

    public static boolean expired(Instant shutdown, Instant now) {
        return shutdown != null && !now.isBefore(shutdown);
    }

    /** RequeueAfter for a future shutdownTime: max(remaining, 2s). */
    public static Duration requeueAfter(Instant shutdown, Instant now) {
        Duration left = Duration.between(now, shutdown);
        return left.compareTo(MIN_REQUEUE) < 0 ? MIN_REQUEUE : left;
    }
}
