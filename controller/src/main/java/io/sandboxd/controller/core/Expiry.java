package io.sandboxd.controller.core;

import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;

/** shutdownTime handling (§2.8, §2.12). */
public final class Expiry {
    private Expiry() {}

    public static final Duration MIN_REQUEUE = Duration.ofSeconds(2);

    public static Instant parse(String rfc3339) {
        if (rfc3339 == null) return null;
        try {
            return OffsetDateTime.parse(rfc3339).toInstant();
        } catch (DateTimeParseException e) {
            return null;
        }
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
