package io.sandboxd.daemon.rest;

import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Bounds how slowly a request body may arrive. The idle timeout only ends a body that stops;
 * one that trickles (a byte every second) would hold a connection, a thread and a temp file
 * for ever. After a grace period, a body whose average rate is below the minimum is cut off.
 */
final class MinimumRate {
    static final long MIN_BYTES_PER_SECOND = 1024;
    static final long GRACE_SECONDS = 10;

    private final long minBytesPerSecond;
    private final long graceNanos;
    private final LongSupplier clock;
    private final long startNanos;
    private long bytes;

    MinimumRate() {
        this(MIN_BYTES_PER_SECOND, TimeUnit.SECONDS.toNanos(GRACE_SECONDS), System::nanoTime);
    }

    MinimumRate(long minBytesPerSecond, long graceNanos, LongSupplier clock) {
        this.minBytesPerSecond = minBytesPerSecond;
        this.graceNanos = graceNanos;
        this.clock = clock;
        this.startNanos = clock.getAsLong();
    }

    /** Counts {@code n} more body bytes (0 at end of body) and checks the average rate. */
    void received(long n) throws MinimumRateInputStream.TooSlow {
        bytes += n;
        long elapsed = clock.getAsLong() - startNanos;
        if (elapsed > graceNanos && bytes < minBytesPerSecond * (elapsed / 1e9)) {
            throw new MinimumRateInputStream.TooSlow();
        }
    }
}
