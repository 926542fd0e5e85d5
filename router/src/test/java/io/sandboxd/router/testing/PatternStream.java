package io.sandboxd.router.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.security.MessageDigest;

/** A deterministic byte stream generated on the fly (never held in memory), with a running SHA-256. */
public final class PatternStream extends InputStream {
    private static final byte[] BLOCK = block();
    private final long total;
    private long pos;
    public final MessageDigest digest = HttpBackend.sha256();

    public PatternStream(long total) {
        this.total = total;
    }

    private static byte[] block() {
        byte[] b = new byte[64 * 1024 + 7]; // odd length: chunk boundaries never line up with it
        long x = 0x9E3779B97F4A7C15L;
        for (int i = 0; i < b.length; i++) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
            b[i] = (byte) x;
        }
        return b;
    }

    @Override
    public int read() {
        byte[] one = new byte[1];
        return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] dst, int off, int len) {
        if (pos >= total) {
            return -1;
        }
        int n = (int) Math.min(len, total - pos);
        int done = 0;
        while (done < n) {
            int at = (int) ((pos + done) % BLOCK.length);
            int k = Math.min(n - done, BLOCK.length - at);
            System.arraycopy(BLOCK, at, dst, off + done, k);
            done += k;
        }
        digest.update(dst, off, n);
        pos += n;
        return n;
    }

    public static void write(OutputStream out, long bytes) throws IOException {
        PatternStream p = new PatternStream(bytes);
        byte[] buf = new byte[64 * 1024];
        int r;
        while ((r = p.read(buf, 0, buf.length)) > 0) {
            out.write(buf, 0, r);
        }
    }

    /** SHA-256 hex of the first {@code bytes} bytes of the pattern. */
    public static String sha256Of(long bytes) {
        PatternStream p = new PatternStream(bytes);
        byte[] buf = new byte[256 * 1024];
        while (p.read(buf, 0, buf.length) > 0) {
            // consume
        }
        return java.util.HexFormat.of().formatHex(p.digest.digest());
    }
}
