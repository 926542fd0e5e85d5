package io.sandboxd.daemon.rest;

import io.sandboxd.daemon.fs.EntryStat;
import io.sandboxd.daemon.fs.Name;
import io.sandboxd.daemon.fs.Utf8;
import java.time.format.DateTimeFormatter;
import java.util.Arrays;
import java.util.List;
import tools.jackson.core.JsonGenerator;

/**
 * {@code stat} as JSON (runtime-contract §4.3). Names follow the listing's convention
 * ({@link ListingJson}): text for display, and beside it the percent-encoded bytes
 * ({@code path_encoded}, {@code link_target_encoded}) when they are not UTF-8.
 */
final class StatJson {
    private StatJson() {}

    static byte[] of(EntryStat s) {
        return Json.bytes(g -> {
            g.writeStartObject();
            writePath(g, "path", s.path(), true);
            g.writeStringProperty("type", s.type().wireName());
            g.writeNumberProperty("size", s.size());
            g.writeStringProperty("mode", octal(s.mode()));
            g.writeStringProperty("modified_at", DateTimeFormatter.ISO_INSTANT.format(s.modifiedAt()));
            if (s.etag() != null) {
                g.writeStringProperty("etag", s.etag());
            }
            if (s.linkTarget() != null) {
                writeLinkTarget(g, s.linkTarget());
                g.writeStringProperty("link_resolves", s.link().wireName());
            }
            g.writeEndObject();
        });
    }

    /**
     * {@code "path":"/a/b"} (or {@code "a/b"} when not {@code absolute}) and, when a segment is
     * not UTF-8, {@code "path_encoded":"/a/%FF"}: each segment percent-encoded, so it addresses
     * the entry in any path parameter.
     */
    static void writePath(JsonGenerator g, String field, List<Name> segments, boolean absolute) {
        StringBuilder shown = new StringBuilder();
        boolean utf8 = true;
        for (Name n : segments) {
            if (absolute || shown.length() > 0) {
                shown.append('/');
            }
            shown.append(n.display());
            utf8 &= n.isUtf8();
        }
        g.writeStringProperty(field, absolute && shown.length() == 0 ? "/" : shown.toString());
        if (!utf8) {
            StringBuilder encoded = new StringBuilder();
            for (Name n : segments) {
                if (absolute || encoded.length() > 0) {
                    encoded.append('/');
                }
                encoded.append(n.percentEncoded());
            }
            g.writeStringProperty(field + "_encoded", encoded.toString());
        }
    }

    /** {@code link_target}, and {@code link_target_encoded} when the target's bytes are not UTF-8. */
    static void writeLinkTarget(JsonGenerator g, byte[] target) {
        g.writeStringProperty("link_target", Utf8.lossy(target));
        if (!Utf8.isValid(target)) {
            g.writeStringProperty("link_target_encoded", encodePath(target));
        }
    }

    /** Each byte percent-encoded but {@code /}, which stays a separator. */
    static String encodePath(byte[] b) {
        StringBuilder sb = new StringBuilder();
        int start = 0;
        for (int i = 0; i <= b.length; i++) {
            if (i == b.length || b[i] == '/') {
                sb.append(Utf8.percentEncode(Arrays.copyOfRange(b, start, i)));
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
