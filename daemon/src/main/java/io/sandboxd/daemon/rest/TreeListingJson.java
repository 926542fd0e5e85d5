package io.sandboxd.daemon.rest;

import io.sandboxd.daemon.fs.ListCursor;
import io.sandboxd.daemon.fs.TreeEntry;
import io.sandboxd.daemon.fs.TreeListing;
import java.io.IOException;
import java.io.OutputStream;
import java.time.format.DateTimeFormatter;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.exc.JacksonIOException;

/**
 * A page of a deep listing as JSON (runtime-contract §4.3), written entry by entry as the
 * listing delivers them through the streaming generator ({@link Json}, 8 KB buffered): never built
 * whole. {@code next_cursor} comes last, present only when there is a next page.
 */
final class TreeListingJson {
    private TreeListingJson() {}

    static void write(TreeListing listing, OutputStream out) throws IOException {
        // not closed on failure: closing flushes, and a half listing would go out ahead of the error body
        JsonGenerator g = Json.to(out);
        try {
            g.writeStartObject();
            StatJson.writePath(g, "path", listing.directory(), true);
            g.writeName("entries");
            g.writeStartArray();
            listing.forEach(e -> writeEntry(g, e));
            g.writeEndArray();
            ListCursor next = listing.next();
            if (next != null) {
                g.writeStringProperty("next_cursor", next.encode());
            }
            g.writeEndObject();
            g.writeRaw('\n');
            g.close();
        } catch (JacksonIOException e) {
            throw Json.unwrap(e);
        }
    }

    private static void writeEntry(JsonGenerator g, TreeEntry e) {
        g.writeStartObject();
        StatJson.writePath(g, "path", e.path(), false);
        g.writeStringProperty("type", e.type().wireName());
        g.writeNumberProperty("size", e.size());
        g.writeStringProperty("mode", StatJson.octal(e.mode()));
        g.writeStringProperty("modified_at", DateTimeFormatter.ISO_INSTANT.format(e.modifiedAt()));
        if (e.etag() != null) {
            g.writeStringProperty("etag", e.etag());
        }
        if (e.linkTarget() != null) {
            StatJson.writeLinkTarget(g, e.linkTarget());
        }
        if (e.listError() != null) {
            g.writeStringProperty("list_error", e.listError());
        }
        g.writeEndObject();
    }
}
