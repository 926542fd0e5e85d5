package io.sandboxd.logging;

import java.util.Locale;

public enum LogFormat {
    TEXT,
    JSON;

    /**
     * The format from {@code --log-format} and upstream's {@code --zap-encoder} (json or console):
     * the encoder flag counts only when {@code --log-format} (or its env) was not given.
     *
     * @throws IllegalArgumentException naming the flag and its accepted values
     */
    public static LogFormat choose(String logFormat, boolean logFormatGiven, String zapEncoder) {
        if (zapEncoder != null && !logFormatGiven) {
            switch (zapEncoder.trim()) {
                case "json":
                    return JSON;
                case "console":
                    return TEXT;
                default:
                    throw new IllegalArgumentException(
                            "--zap-encoder must be json or console (got \"" + zapEncoder + "\")");
            }
        }
        try {
            return valueOf(logFormat.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--log-format must be text or json (got \"" + logFormat + "\")");
        }
    }
}
