package io.sandboxd.client;

import java.time.Instant;
import tools.jackson.databind.JsonNode;

/**
 * One event of a filesystem watch (runtime-contract §4.2; openapi.yaml {@code WatchEvent}).
 *
 * @param seq            the event id: daemon-wide, increasing; what a watch resumes after
 * @param type           {@code created}, {@code modified}, {@code deleted}, {@code moved},
 *                       {@code attributes}, {@code resync} or {@code error}
 * @param path           the entry below the root, with a leading {@code /} (a move's new path;
 *                       for resync and error the watched path); invalid UTF-8 shown as U+FFFD
 * @param pathEncoded    only for a path that is not UTF-8: its bytes percent-encoded per segment, else null
 * @param oldPath        a move's old path, else null
 * @param oldPathEncoded as {@code pathEncoded}, for {@code oldPath}
 * @param entry          {@code file}, {@code directory}, {@code symlink}, ...; null for resync and error
 * @param size           bytes, or -1 where not known
 * @param modifiedAt     mtime, or null where not known
 * @param reason         why a resync or an error happened ({@code overflow}, {@code lagging},
 *                       {@code cursor}, {@code limit}, {@code deleted}, {@code moved}, {@code shutdown}), else null
 * @param code           an error's code ({@code RESOURCE_EXHAUSTED}, {@code NOT_FOUND}, ...), else null
 * @param message        an error's message (it names the limit it hit), else null
 * @param limit          the flag or sysctl an error's limit is, else null
 * @param json           the event exactly as the daemon sent it (one line of JSON)
 */
public record WatchEvent(
        long seq,
        String type,
        String path,
        String pathEncoded,
        String oldPath,
        String oldPathEncoded,
        String entry,
        long size,
        Instant modifiedAt,
        String reason,
        String code,
        String message,
        String limit,
        String json) {

    /** Events were lost or cannot be replayed: list the watched tree again, then apply what follows. */
    public boolean isResync() {
        return "resync".equals(type);
    }

    /** The last event of a stream: the watch cannot go on ({@link #message()} says why). */
    public boolean isError() {
        return "error".equals(type);
    }

    static WatchEvent parse(String json) {
        JsonNode n = Json.MAPPER.readTree(json);
        String mtime = text(n, "modified_at");
        return new WatchEvent(
                n.path("seq").asLong(),
                text(n, "type"),
                text(n, "path"),
                text(n, "path_encoded"),
                text(n, "old_path"),
                text(n, "old_path_encoded"),
                text(n, "entry"),
                n.has("size") ? n.path("size").asLong() : -1,
                mtime == null ? null : Instant.parse(mtime),
                text(n, "reason"),
                text(n, "code"),
                text(n, "message"),
                text(n, "limit"),
                json);
    }

    private static String text(JsonNode n, String field) {
        JsonNode v = n.get(field);
        return v == null || v.isNull() ? null : v.asString();
    }
}
