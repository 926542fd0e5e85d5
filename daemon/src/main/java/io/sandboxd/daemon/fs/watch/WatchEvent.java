package io.sandboxd.daemon.fs.watch;

import io.sandboxd.daemon.fs.EntryType;
import java.nio.charset.StandardCharsets;
import java.time.Instant;

/**
 * One event of a watch (runtime-contract §4.2). Paths are relative to the sandbox root, without a
 * leading slash ({@code ""} is the root), and are raw bytes carried in a String one char per byte
 * (ISO-8859-1): lossless for names that are not UTF-8, cheap to hash and compare, and never
 * mistaken for text because they only leave this package through {@link #pathBytes()}.
 *
 * @param seq     the daemon-wide sequence number (the SSE {@code id})
 * @param path    the entry (the new path of a move); for resync and error the watched path
 * @param oldPath the old path of a move, else null
 * @param entry   what the entry is, null for resync and error
 * @param size    bytes, -1 where unknown (deletions, directories vanished meanwhile)
 * @param mtime   last modification, null where unknown
 * @param reason  why a resync or an error happened (a short token such as {@code overflow}), else null
 * @param message a sentence for the client (errors: names the limit), else null
 * @param limit   the flag or sysctl an error hit, else null
 */
public record WatchEvent(
        long seq,
        EventKind kind,
        String path,
        String oldPath,
        EntryType entry,
        long size,
        Instant mtime,
        String reason,
        String message,
        String limit) {

    static WatchEvent change(
            long seq, EventKind kind, String path, String oldPath, EntryType entry, long size, Instant mtime) {
        return new WatchEvent(seq, kind, path, oldPath, entry, size, mtime, null, null, null);
    }

    static WatchEvent resync(long seq, String watchedPath, String reason) {
        return new WatchEvent(seq, EventKind.RESYNC, watchedPath, null, null, -1, null, reason, null, null);
    }

    static WatchEvent error(long seq, String watchedPath, String reason, String message, String limit) {
        return new WatchEvent(seq, EventKind.ERROR, watchedPath, null, null, -1, null, reason, message, limit);
    }

    /** The path's bytes. */
    public byte[] pathBytes() {
        return path.getBytes(StandardCharsets.ISO_8859_1);
    }

    /** The old path's bytes, or null when this is not a move. */
    public byte[] oldPathBytes() {
        return oldPath == null ? null : oldPath.getBytes(StandardCharsets.ISO_8859_1);
    }

    /** Roughly what the event costs on the heap: the record, its strings and the instant. */
    long retainedBytes() {
        return 120L
                + path.length()
                + (oldPath == null ? 0 : 48L + oldPath.length())
                + (message == null ? 0 : 48L + message.length());
    }
}
