package io.sandboxd.daemon.rest;

import io.sandboxd.daemon.fs.EntryStat;
import io.sandboxd.daemon.fs.Name;
import io.sandboxd.daemon.fs.Utf8;
import io.sandboxd.logging.JsonText;
import java.time.format.DateTimeFormatter;
import java.util.List;

/**
 * {@code stat} as JSON (runtime-contract §4.3). Names follow the listing's convention
 * ({@link ListingJson}): text for display, and beside it the percent-encoded bytes
 * ({@code path_encoded}, {@code link_target_encoded}) when they are not UTF-8.
 */
final class StatJson {
    private StatJson() {}

    static byte[] of(EntryStat s) {
        StringBuilder sb = new StringBuilder(256);
        sb.append('{');
        appendPath(sb, "path", s.path(), true);
        sb.append(",\"type\":\"").append(s.type().wireName()).append('"');
        sb.append(",\"size\":").append(s.size());
        sb.append(",\"mode\":\"").append(octal(s.mode())).append('"');
        sb.append(",\"modified_at\":");
        JsonText.appendString(sb, DateTimeFormatter.ISO_INSTANT.format(s.modifiedAt()));
        if (s.etag() != null) {
            sb.append(",\"etag\":");
            JsonText.appendString(sb, s.etag());
        }
        if (s.linkTarget() != null) {
            sb.append(",\"link_target\":");
            JsonText.appendString(sb, Utf8.lossy(s.linkTarget()));
            if (!Utf8.isValid(s.linkTarget())) {
                sb.append(",\"link_target_encoded\":");
                JsonText.appendString(sb, encodePath(s.linkTarget()));
            }
            sb.append(",\"link_resolves\":\"").append(s.link().wireName()).append('"');
        }
        sb.append("}\n");
        return sb.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    /**
     * {@code "path":"/a/b"} (or {@code "a/b"} when not {@code absolute}) and, when a segment is
     * not UTF-8, {@code "path_encoded":"/a/%FF"}: each segment percent-encoded, so it addresses
     * the entry in any path parameter.
     */
    static void appendPath(StringBuilder sb, String field, List<Name> segments, boolean absolute) {
        StringBuilder shown = new StringBuilder();
        StringBuilder encoded = new StringBuilder();
        boolean utf8 = true;
        for (Name n : segments) {
            if (absolute || shown.length() > 0) {
                shown.append('/');
                encoded.append('/');
            }
            shown.append(n.display());
            encoded.append(n.percentEncoded());
            utf8 &= n.isUtf8();
        }
        sb.append('"').append(field).append("\":");
        JsonText.appendString(sb, absolute && shown.length() == 0 ? "/" : shown.toString());
        if (!utf8) {
            sb.append(",\"").append(field).append("_encoded\":");
            JsonText.appendString(sb, encoded.toString());
        }
    }

    /** Each byte percent-encoded but {@code /}, which stays a separator. */
    static String encodePath(byte[] b) {
        StringBuilder sb = new StringBuilder();
        int start = 0;
        for (int i = 0; i <= b.length; i++) {
            if (i == b.length || b[i] == '/') {
                sb.append(Utf8.percentEncode(java.util.Arrays.copyOfRange(b, start, i)));
                if (i < b.length) {
                    sb.append('/');
                }
                start = i + 1;
            }
        }
        return sb.toString();
    }

    /** {@code 0644}, {@code 4755}: four octal digits. */
    static String octal(int mode) {
        String s = Integer.toOctalString(mode & 07777);
        return "0000".substring(s.length()) + s;
    }
}
