package io.sandboxd.logging;

import java.util.Locale;

/**
 * The root log level, from upstream's {@code --zap-log-level} (controller-runtime's zap flag).
 * zap's names map onto logback's levels; zap has no trace, so its verbosity integers do the same
 * job: {@code n > 0} is zap level {@code -n}, where -1 is debug and anything below it more verbose
 * still (trace here). zap's levels above error (dpanic, panic, fatal) have no logback counterpart
 * and keep errors: the binaries log nothing more severe.
 */
public enum LogLevel {
    TRACE,
    DEBUG,
    INFO,
    WARN,
    ERROR;

    /** What every binary logs without the flag. */
    public static final LogLevel DEFAULT = INFO;

    static final String ACCEPTED = "debug, info, warn, error, dpanic, panic, fatal or an integer of 1 or more";

    /**
     * @param value the flag's value, or null when it was not given ({@link #DEFAULT})
     * @throws IllegalArgumentException naming the flag and the values it accepts
     */
    public static LogLevel fromZap(String value) {
        if (value == null) {
            return DEFAULT;
        }
        String v = value.trim();
        switch (v.toLowerCase(Locale.ROOT)) {
            case "debug":
                return DEBUG;
            case "info":
                return INFO;
            case "warn":
                return WARN;
            case "error":
            case "dpanic":
            case "panic":
            case "fatal":
                return ERROR;
            default:
                break;
        }
        int verbosity;
        try {
            verbosity = Integer.parseInt(v);
        } catch (NumberFormatException e) {
            verbosity = 0;
        }
        if (verbosity < 1) {
            throw new IllegalArgumentException("--zap-log-level must be " + ACCEPTED + " (got \"" + value + "\")");
        }
        return verbosity == 1 ? DEBUG : TRACE;
    }
}
