package io.sandboxd.daemon.rest;

import io.sandboxd.daemon.fs.DirectoryListing;
import io.sandboxd.daemon.fs.FileEntry;
import io.sandboxd.daemon.fs.Name;
import io.sandboxd.daemon.fs.Utf8;
import io.sandboxd.logging.JsonText;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * A directory listing as upstream's JSON (runtime-contract §2.3), written entry by entry as the listing
 * delivers them: one JSON object whatever the number of entries, never built whole in memory.
 * A name that is not UTF-8 shows in {@code name} as upstream shows it (each invalid byte a
 * U+FFFD), and the entry gets one more field, {@code name_encoded}: the name's bytes
 * percent-encoded, which addresses the file ({@code /v1/files/<dir>/<name_encoded>}). Upstream
 * SDKs ignore the field; only such entries carry it.
 */
final class ListingJson {
    /** Entries are flushed to the response in batches of about this many bytes. */
    private static final int BATCH_CHARS = 8 * 1024;

    private ListingJson() {}

    static void write(byte[] requestedPath, DirectoryListing listing, OutputStream out) throws IOException {
        String shown = Utf8.lossy(requestedPath);
        StringBuilder sb = new StringBuilder(BATCH_CHARS + 512);
        sb.append("{\"path\":");
        JsonText.appendString(sb, shown.startsWith("/") ? shown : "/" + shown);
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
        sb.append("]}\n");
        out.write(sb.toString().getBytes(StandardCharsets.UTF_8));
    }

    static void appendEntry(StringBuilder sb, FileEntry e) {
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
}
