package io.sandboxd.daemon.rest;

import io.sandboxd.daemon.fs.DirectoryListing;
import io.sandboxd.daemon.fs.FileEntry;
import io.sandboxd.daemon.fs.Name;
import io.sandboxd.daemon.fs.Utf8;
import java.io.IOException;
import java.io.OutputStream;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.SerializableString;
import tools.jackson.core.exc.JacksonIOException;
import tools.jackson.core.io.SerializedString;

/**
 * A directory listing as upstream's JSON (runtime-contract §2.3), written entry by entry as the listing
 * delivers them through the streaming generator ({@link Json}, 8 KB buffered): one JSON object whatever
 * the number of entries, never built whole in memory.
 * A name that is not UTF-8 shows in {@code name} as upstream shows it (each invalid byte a
 * U+FFFD), and the entry gets one more field, {@code name_encoded}: the name's bytes
 * percent-encoded, which addresses the file ({@code /v1/files/<dir>/<name_encoded>}). Upstream
 * SDKs ignore the field; only such entries carry it.
 */
final class ListingJson {
    private static final SerializableString NAME = new SerializedString("name");
    private static final SerializableString NAME_ENCODED = new SerializedString("name_encoded");
    private static final SerializableString SIZE = new SerializedString("size");
    private static final SerializableString TYPE = new SerializedString("type");
    private static final SerializableString DIRECTORY = new SerializedString("directory");
    private static final SerializableString FILE = new SerializedString("file");
    private static final SerializableString MODIFIED_AT = new SerializedString("modified_at");
    private static final SerializableString MODE = new SerializedString("mode");

    private ListingJson() {}

    static void write(byte[] requestedPath, DirectoryListing listing, OutputStream out) throws IOException {
        String shown = Utf8.lossy(requestedPath);
        // not closed on failure: closing flushes, and a half listing would go out ahead of the error body
        JsonGenerator g = Json.to(out);
        try {
            g.writeStartObject();
            g.writeStringProperty("path", shown.startsWith("/") ? shown : "/" + shown);
            g.writeName("entries");
            g.writeStartArray();
            char[] mode = {'0', '0', '0', '0'};
            listing.forEach(e -> writeEntry(g, e, mode));
            g.writeEndArray();
            g.writeEndObject();
            g.writeRaw('\n');
            g.close();
        } catch (JacksonIOException e) {
            throw Json.unwrap(e);
        }
    }

    /** @param mode scratch for the four octal digits, reused across entries */
    static void writeEntry(JsonGenerator g, FileEntry e, char[] mode) {
        Name name = e.name();
        g.writeStartObject();
        g.writeName(NAME);
        g.writeString(name.display());
        if (!name.isUtf8()) {
            g.writeName(NAME_ENCODED);
            g.writeString(name.percentEncoded());
        }
        g.writeName(SIZE);
        g.writeNumber(e.size());
        g.writeName(TYPE);
        g.writeString(e.directory() ? DIRECTORY : FILE);
        g.writeName(MODIFIED_AT);
        g.writeString(HttpDates.rfc3339(e.modifiedAt()));
        int m = e.mode();
        mode[1] = (char) ('0' + (m >> 6 & 7));
        mode[2] = (char) ('0' + (m >> 3 & 7));
        mode[3] = (char) ('0' + (m & 7));
        g.writeName(MODE);
        g.writeString(mode, 0, 4);
        g.writeEndObject();
    }
}
