package io.sandboxd.reliability.soak;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Files every client overwrites concurrently. Their "last written" content is not knowable, so
 * each content is self-checking (a SHA-256 of the payload, then the payload): a reader that sees a
 * partial or interleaved write detects it.
 */
final class SharedFiles {
    static final int COUNT = 4;
    private static final int DIGEST = 32;

    private final AtomicBoolean[] written = new AtomicBoolean[COUNT];

    SharedFiles() {
        for (int i = 0; i < COUNT; i++) {
            written[i] = new AtomicBoolean();
        }
    }

    static String path(int k) {
        return "soak/shared/s" + k;
    }

    boolean written(int k) {
        return written[k].get();
    }

    void markWritten(int k) {
        written[k].set(true);
    }

    static byte[] seal(byte[] payload) {
        byte[] out = new byte[DIGEST + payload.length];
        System.arraycopy(sha256(payload), 0, out, 0, DIGEST);
        System.arraycopy(payload, 0, out, DIGEST, payload.length);
        return out;
    }

    static boolean intact(byte[] content) {
        if (content.length < DIGEST) {
            return false;
        }
        byte[] payload = Arrays.copyOfRange(content, DIGEST, content.length);
        return Arrays.equals(Arrays.copyOf(content, DIGEST), sha256(payload));
    }

    static byte[] sha256(byte[] data) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(data);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
