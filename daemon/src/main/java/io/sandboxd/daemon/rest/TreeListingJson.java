package io.sandboxd.daemon.rest;

import io.sandboxd.daemon.fs.ListCursor;
import io.sandboxd.daemon.fs.TreeEntry;
import io.sandboxd.daemon.fs.TreeListing;
import io.sandboxd.daemon.fs.Utf8;
import io.sandboxd.logging.JsonText;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.format.DateTimeFormatter;

/**
 * A page of a deep listing as JSON (runtime-contract §4.3), written entry by entry as the
 * listing delivers them, in batches of about {@link #BATCH_CHARS}: never built whole.
 * {@code next_cursor} comes last, present only when there is a next page.
 */
final class TreeListingJson {
    private static final int BATCH_CHARS = 8 * 1024;

    private TreeListingJson() {}

    static void write(TreeListing listing, OutputStream out) throws IOException {
        StringBuilder sb = new StringBuilder(BATCH_CHARS + 1024);
        sb.append('{');
        StatJson.appendPath(sb, "path", listing.directory(), true);
        sb.append(",\"entries\":[");
        boolean[] first = {true};
        listing.forEach(e -> {
            if (!first[0]) {
                sb.append(',');
            }
            first[0] = false;
            appendEntry(sb, e);
            if (sb.length() >= BATCH_CHARS) {
                out.write(sb.toString().getBytes(StandardCharsets.UTF_8));
                sb.setLength(0);
            }
        });
        sb.append(']');
        ListCursor next = listing.next();
        if (next != null) {
            sb.append(",\"next_cursor\":");
            JsonText.appendString(sb, next.encode());
        }
        sb.append("}\n");
        out.write(sb.toString().getBytes(StandardCharsets.UTF_8));
    }

    private static void appendEntry(StringBuilder sb, TreeEntry e) {
        sb.append('{');
        StatJson.appendPath(sb, "path", e.path(), false);
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
}
