package io.sandboxd.daemon.rest;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

/** A request body stream cut off when it arrives below {@link MinimumRate} (multipart uploads). */
final class MinimumRateInputStream extends FilterInputStream {
    /** The body arrived too slowly; nothing is written. */
    static final class TooSlow extends IOException {
        TooSlow() {
            super("request body arrived at under " + MinimumRate.MIN_BYTES_PER_SECOND + " bytes/s on average after "
                    + MinimumRate.GRACE_SECONDS + " s; nothing was written");
        }
    }

    private final MinimumRate rate = new MinimumRate();

    MinimumRateInputStream(InputStream in) {
        super(in);
    }

    @Override
    public int read() throws IOException {
        int b = super.read();
        rate.received(b >= 0 ? 1 : 0);
        return b;
    }

    @Override
    public int read(byte[] buf, int off, int len) throws IOException {
        int n = super.read(buf, off, len);
        rate.received(Math.max(n, 0));
        return n;
    }
}
