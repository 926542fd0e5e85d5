package io.sandboxd.daemon.rest;

import io.sandboxd.daemon.fs.DirectoryListing;
import io.sandboxd.daemon.fs.EntryStat;
import io.sandboxd.daemon.fs.FileEntry;
import io.sandboxd.daemon.fs.ListCursor;
import io.sandboxd.daemon.fs.Name;
import io.sandboxd.daemon.fs.TreeEntry;
import io.sandboxd.daemon.fs.TreeListing;
import io.sandboxd.daemon.fs.Utf8;
import io.sandboxd.daemon.fs.watch.EventKind;
import io.sandboxd.daemon.fs.watch.WatchEvent;
import io.sandboxd.logging.JsonText;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.format.DateTimeFormatter;
import java.util.List;

/**
 * The StringBuilder writers the REST bodies used before Jackson's generator replaced them (issue 21),
 * kept verbatim in shape as the oracle {@link JsonBodiesTest} compares today's bytes with: what
 * upstream's SDKs and our own clients already read.
 */
final class HandWrittenJson {
    private HandWrittenJson() {}

    static byte[] error(String code, String message) {
        StringBuilder sb = new StringBuilder("{\"code\":");
        JsonText.appendString(sb, code);
        sb.append(",\"message\":");
        JsonText.appendString(sb, message);
        return sb.append("}\n").toString().getBytes(StandardCharsets.UTF_8);
    }

    static byte[] metadata(List<String[]> env) {
        StringBuilder sb = new StringBuilder("{\"env\":{");
        boolean first = true;
        for (String[] e : env) {
            if (!first) {
                sb.append(',');
            }
            first = false;
            JsonText.appendString(sb, e[0]);
            sb.append(':');
            JsonText.appendString(sb, e[1]);
        }
        return sb.append("}}\n").toString().getBytes(StandardCharsets.UTF_8);
    }

    static byte[] listing(byte[] requestedPath, DirectoryListing listing) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        String shown = Utf8.lossy(requestedPath);
        StringBuilder sb = new StringBuilder();
        sb.append("{\"path\":");
        JsonText.appendString(sb, shown.startsWith("/") ? shown : "/" + shown);
        sb.append(",\"entries\":[");
        boolean[] first = {true};
        listing.forEach(e -> {
            if (!first[0]) {
                sb.append(',');
            }
            first[0] = false;
            listingEntry(sb, e);
        });
        sb.append("]}\n");
        out.write(sb.toString().getBytes(StandardCharsets.UTF_8));
        return out.toByteArray();
    }

    private static void listingEntry(StringBuilder sb, FileEntry e) {
        Name name = e.name();
        sb.append("{\"name\":");
        JsonText.appendString(sb, name.display());
        if (!name.isUtf8()) {
            sb.append(",\"name_encoded\":");
            JsonText.appendString(sb, name.percentEncoded());
        }
        sb.append(",\"size\":")
                .append(e.size())
                .append(",\"type\":")
                .append(e.directory() ? "\"directory\"" : "\"file\"")
                .append(",\"modified_at\":");
        JsonText.appendString(sb, HttpDates.rfc3339(e.modifiedAt()));
        int m = e.mode();
        sb.append(",\"mode\":\"0")
                .append((char) ('0' + (m >> 6 & 7)))
                .append((char) ('0' + (m >> 3 & 7)))
                .append((char) ('0' + (m & 7)))
                .append("\"}");
    }

    static byte[] stat(EntryStat s) {
        StringBuilder sb = new StringBuilder();
        sb.append('{');
        path(sb, "path", s.path(), true);
        sb.append(",\"type\":\"").append(s.type().wireName()).append('"');
        sb.append(",\"size\":").append(s.size());
        sb.append(",\"mode\":\"").append(StatJson.octal(s.mode())).append('"');
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
                JsonText.appendString(sb, StatJson.encodePath(s.linkTarget()));
            }
            sb.append(",\"link_resolves\":\"").append(s.link().wireName()).append('"');
        }
        return sb.append("}\n").toString().getBytes(StandardCharsets.UTF_8);
    }

    private static void path(StringBuilder sb, String field, List<Name> segments, boolean absolute) {
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

    static byte[] tree(TreeListing listing) throws IOException {
        StringBuilder sb = new StringBuilder();
        sb.append('{');
        path(sb, "path", listing.directory(), true);
        sb.append(",\"entries\":[");
        boolean[] first = {true};
        listing.forEach(e -> {
            if (!first[0]) {
                sb.append(',');
            }
            first[0] = false;
            treeEntry(sb, e);
        });
        sb.append(']');
        ListCursor next = listing.next();
        if (next != null) {
            sb.append(",\"next_cursor\":");
            JsonText.appendString(sb, next.encode());
        }
        return sb.append("}\n").toString().getBytes(StandardCharsets.UTF_8);
    }

    private static void treeEntry(StringBuilder sb, TreeEntry e) {
        sb.append('{');
        path(sb, "path", e.path(), false);
        sb.append(",\"type\":\"").append(e.type().wireName()).append('"');
        sb.append(",\"size\":").append(e.size());
        sb.append(",\"mode\":\"").append(StatJson.octal(e.mode())).append('"');
        sb.append(",\"modified_at\":");
        JsonText.appendString(sb, DateTimeFormatter.ISO_INSTANT.format(e.modifiedAt()));
        if (e.etag() != null) {
            sb.append(",\"etag\":");
            JsonText.appendString(sb, e.etag());
        }
        if (e.linkTarget() != null) {
            sb.append(",\"link_target\":");
            JsonText.appendString(sb, Utf8.lossy(e.linkTarget()));
            if (!Utf8.isValid(e.linkTarget())) {
                sb.append(",\"link_target_encoded\":");
                JsonText.appendString(sb, StatJson.encodePath(e.linkTarget()));
            }
        }
        if (e.listError() != null) {
            sb.append(",\"list_error\":");
            JsonText.appendString(sb, e.listError());
        }
        sb.append('}');
    }

    static String sse(WatchEvent e) {
        StringBuilder sb = new StringBuilder();
        sb.append("id: ").append(e.seq()).append("\ndata: ");
        sb.append("{\"seq\":")
                .append(e.seq())
                .append(",\"type\":\"")
                .append(e.kind().wireName())
                .append('"');
        watchPath(sb, "path", e.pathBytes());
        if (e.oldPath() != null) {
            watchPath(sb, "old_path", e.oldPathBytes());
        }
        if (e.entry() != null) {
            sb.append(",\"entry\":\"").append(e.entry().wireName()).append('"');
        }
        if (e.size() >= 0) {
            sb.append(",\"size\":").append(e.size());
        }
        if (e.mtime() != null) {
            sb.append(",\"modified_at\":\"").append(e.mtime()).append('"');
        }
        if (e.reason() != null) {
            sb.append(",\"reason\":");
            JsonText.appendString(sb, e.reason());
        }
        if (e.kind() == EventKind.ERROR) {
            sb.append(",\"code\":\"").append(WatchSse.code(e.reason())).append("\",\"message\":");
            JsonText.appendString(sb, e.message());
            if (e.limit() != null) {
                sb.append(",\"limit\":");
                JsonText.appendString(sb, e.limit());
            }
        }
        return sb.append("}\n\n").toString();
    }

    private static void watchPath(StringBuilder sb, String field, byte[] raw) {
        sb.append(",\"").append(field).append("\":");
        JsonText.appendString(sb, "/" + Utf8.lossy(raw));
        if (!Utf8.isValid(raw)) {
            sb.append(",\"").append(field).append("_encoded\":\"");
            int start = 0;
            for (int i = 0; i <= raw.length; i++) {
                if (i == raw.length || raw[i] == '/') {
                    sb.append('/').append(Utf8.percentEncode(java.util.Arrays.copyOfRange(raw, start, i)));
                    start = i + 1;
                }
            }
            sb.append('"');
        }
    }
}
