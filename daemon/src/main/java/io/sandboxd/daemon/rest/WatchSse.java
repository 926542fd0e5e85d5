package io.sandboxd.daemon.rest;

import io.sandboxd.daemon.fs.Utf8;
import io.sandboxd.daemon.fs.watch.EventKind;
import io.sandboxd.daemon.fs.watch.WatchEvent;
import io.sandboxd.logging.JsonText;

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

    static void append(StringBuilder sb, WatchEvent e) {
        sb.append("id: ").append(e.seq()).append("\ndata: ");
        json(sb, e);
        sb.append("\n\n");
    }

    static void json(StringBuilder sb, WatchEvent e) {
        sb.append("{\"seq\":")
                .append(e.seq())
                .append(",\"type\":\"")
                .append(e.kind().wireName())
                .append('"');
        path(sb, "path", e.pathBytes());
        if (e.oldPath() != null) {
            path(sb, "old_path", e.oldPathBytes());
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
            sb.append(",\"code\":\"").append(code(e.reason())).append("\",\"message\":");
            JsonText.appendString(sb, e.message());
            if (e.limit() != null) {
                sb.append(",\"limit\":");
                JsonText.appendString(sb, e.limit());
            }
        }
        sb.append('}');
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

    private static void path(StringBuilder sb, String field, byte[] raw) {
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
