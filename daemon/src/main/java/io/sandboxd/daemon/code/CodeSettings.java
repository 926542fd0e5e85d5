package io.sandboxd.daemon.code;

import java.time.Duration;

/**
 * Limits of the code contexts (flags {@code --code-*}).
 *
 * @param maxContexts      contexts at once
 * @param outputLimit      bytes of outputs one execution keeps (head + tail)
 * @param maxMessageSize   largest kernel message frame accepted
 * @param idleTimeout      a context unused this long is deleted (zero: never)
 * @param startTimeout     how long a kernel may take to answer after its start
 * @param heartbeatTimeout a kernel silent on its heartbeat this long is dead
 */
public record CodeSettings(
        int maxContexts,
        long outputLimit,
        long maxMessageSize,
        Duration idleTimeout,
        Duration startTimeout,
        Duration heartbeatTimeout) {
    public static final int DEFAULT_MAX_CONTEXTS = 16;
    public static final long DEFAULT_OUTPUT_LIMIT = 32L * 1024 * 1024;
    public static final long DEFAULT_MAX_MESSAGE_SIZE = 32L * 1024 * 1024;

    public static CodeSettings defaults() {
        return new CodeSettings(
                DEFAULT_MAX_CONTEXTS,
                DEFAULT_OUTPUT_LIMIT,
                DEFAULT_MAX_MESSAGE_SIZE,
                Duration.ofMinutes(30),
                Duration.ofSeconds(60),
                Duration.ofSeconds(5));
    }
}
