package io.sandboxd.client;

import java.util.Locale;
import java.util.Objects;

/**
 * How to write a file: permission bits ({@code ?mode=0755}, applied exactly), a SHA-256 of the
 * content the daemon verifies before the rename ({@code X-Content-SHA256}), and preconditions:
 * create only ({@code If-None-Match: *}) or replace only a given version ({@code If-Match}).
 */
public final class WriteOptions {
    private static final WriteOptions DEFAULTS = new WriteOptions(-1, null, false, null);

    private final int mode;
    private final String sha256;
    private final boolean createOnly;
    private final String ifMatch;

    private WriteOptions(int mode, String sha256, boolean createOnly, String ifMatch) {
        this.mode = mode;
        this.sha256 = sha256;
        this.createOnly = createOnly;
        this.ifMatch = ifMatch;
    }

    public static WriteOptions defaults() {
        return DEFAULTS;
    }

    /** Permission bits, e.g. {@code 0755}. */
    public WriteOptions mode(int bits) {
        if (bits < 0 || bits > 0777) {
            throw new IllegalArgumentException("mode must be within 0000..0777, got " + Integer.toOctalString(bits));
        }
        return new WriteOptions(bits, sha256, createOnly, ifMatch);
    }

    /** The content's SHA-256 as 64 hex digits; a mismatch is a 400 and nothing is written. */
    public WriteOptions sha256(String hex) {
        if (!hex.matches("[0-9a-fA-F]{64}")) {
            throw new IllegalArgumentException("sha256 must be 64 hex digits");
        }
        return new WriteOptions(mode, hex.toLowerCase(Locale.ROOT), createOnly, ifMatch);
    }

    /** 412 if the file exists. */
    public WriteOptions createOnly() {
        return new WriteOptions(mode, sha256, true, ifMatch);
    }

    /** 412 unless the file exists with this ETag. */
    public WriteOptions ifMatch(String etag) {
        return new WriteOptions(mode, sha256, createOnly, Objects.requireNonNull(etag));
    }

    /** {@code ?mode=0755} or "". */
    String query() {
        return mode < 0 ? "" : "?mode=" + String.format(Locale.ROOT, "%04o", mode);
    }

    void apply(java.net.http.HttpRequest.Builder b) {
        if (sha256 != null) {
            b.header("X-Content-SHA256", sha256);
        }
        if (createOnly) {
            b.header("If-None-Match", "*");
        }
        if (ifMatch != null) {
            b.header("If-Match", ifMatch);
        }
    }
}
