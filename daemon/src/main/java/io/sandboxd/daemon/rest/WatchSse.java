package io.sandboxd.daemon.rest;

import io.sandboxd.daemon.fs.Utf8;
import io.sandboxd.daemon.fs.watch.EventKind;
import io.sandboxd.daemon.fs.watch.WatchEvent;
import tools.jackson.core.JsonGenerator;

/**
 * Watch events as Server-Sent Events (runtime-contract §4.2): {@code id:} is the event's sequence
 * number (what {@code Last-Event-ID} and {@code cursor} resume after), {@code data:} one line of
 * JSON with the event's {@code type}. Paths follow the listings' convention: {@code /a/b} relative
 * to the root, invalid UTF-8 shown as U+FFFD, and then also {@code path_encoded}, the bytes
 * percent-encoded per segment, which addresses exactly that entry. Pure.
 */
final class WatchSse {
    /** An SSE comment: ignored by every client, it keeps proxies and idle timeouts from closing the stream. */
    static final String HEARTBEAT = ":\n\n";

    private WatchSse() {}

    /** The first bytes of a stream: a comment naming the watch, and the reconnect delay EventSource should use. */
    static String opening(String watchedPath) {
        return ": watching " + watchedPath.replace('\n', ' ').replace('\r', ' ') + "\nretry: 1000\n\n";
    }

    /** One event as an SSE frame: {@code id: <seq>}, {@code data: <json>}, a blank line. */
    static void write(JsonGenerator g, WatchEvent e) {
        g.writeRaw("id: " + e.seq() + "\ndata: ");
        json(g, e);
        g.writeRaw("\n\n");
    }

    static void json(JsonGenerator g, WatchEvent e) {
        g.writeStartObject();
        g.writeNumberProperty("seq", e.seq());
        g.writeStringProperty("type", e.kind().wireName());
        path(g, "path", e.pathBytes());
        if (e.oldPath() != null) {
            path(g, "old_path", e.oldPathBytes());
        }
        if (e.entry() != null) {
            g.writeStringProperty("entry", e.entry().wireName());
        }
        if (e.size() >= 0) {
            g.writeNumberProperty("size", e.size());
        }
        if (e.mtime() != null) {
            g.writeStringProperty("modified_at", e.mtime().toString());
        }
        if (e.reason() != null) {
            g.writeStringProperty("reason", e.reason());
        }
        if (e.kind() == EventKind.ERROR) {
            g.writeStringProperty("code", code(e.reason()));
            g.writeStringProperty("message", e.message());
            if (e.limit() != null) {
                g.writeStringProperty("limit", e.limit());
            }
        }
        g.writeEndObject();
    }

    /** The error code an {@code error} event carries, as the REST errors of runtime-contract §2.2 name them. */
    static String code(String reason) {
        return switch (reason) {
            case "limit" -> "RESOURCE_EXHAUSTED";
            case "deleted", "moved" -> "NOT_FOUND";
            case "shutdown" -> "UNAVAILABLE";
            default -> "INTERNAL";
        };
    }

    private static void path(JsonGenerator g, String field, byte[] raw) {
        g.writeStringProperty(field, "/" + Utf8.lossy(raw));
        if (!Utf8.isValid(raw)) {
            g.writeStringProperty(field + "_encoded", "/" + StatJson.encodePath(raw));
        }
    }
}
