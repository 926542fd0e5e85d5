package io.sandboxd.daemon.rest;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.concurrent.TimeUnit;

/**
 * Bounds how slowly a request body may arrive. The idle timeout only ends a body that stops;
 * one that trickles (a byte every second) would hold a connection, a thread and a temp file
 * for ever. After a grace period, a body whose average rate is below the minimum is cut off.
 */
final class MinimumRateInputStream extends FilterInputStream {
    static final long MIN_BYTES_PER_SECOND = 1024;
    static final long GRACE_SECONDS = 10;

    /** The body arrived too slowly; nothing is written. */
    static final class TooSlow extends IOException {
        TooSlow() {
            super("request body arrived at under " + MIN_BYTES_PER_SECOND + " bytes/s on average after "
                    + GRACE_SECONDS + " s; nothing was written");
        }
    }

    private final long startNanos = System.nanoTime();
    private long bytes;

    MinimumRateInputStream(InputStream in) {
        super(in);
    }

    @Override
    public int read() throws IOException {
        int b = super.read();
        if (b >= 0) {
            bytes++;
        }
        check();
        return b;
    }

    @Override
    public int read(byte[] buf, int off, int len) throws IOException {
        int n = super.read(buf, off, len);
        if (n > 0) {
            bytes += n;
        }
        check();
        return n;
    }

    private void check() throws TooSlow {
        long elapsed = System.nanoTime() - startNanos;
        if (elapsed > TimeUnit.SECONDS.toNanos(GRACE_SECONDS)
                && bytes < MIN_BYTES_PER_SECOND * (elapsed / 1e9)) {
            throw new TooSlow();
        }
    }
}
