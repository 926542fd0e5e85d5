package io.sandboxd.daemon.fs.watch;

import java.util.HashMap;
import java.util.Map;

/**
 * Names a scan of a new directory has just reported, so that the kernel's own {@code IN_CREATE}
 * for the same entry (queued between the directory's watch and its scan) is not reported twice.
 * Each name is remembered only until the events queued at the end of its scan have been read
 * (a position in the stream of bytes read from inotify, from {@code FIONREAD}); an entry deleted
 * or renamed in between is forgotten at once, so a later re-creation is reported. Bounded: past
 * {@code max} names a duplicate {@code created} can appear, never a missing one.
 */
final class ScanEchoes {
    private final int max;
    private final Map<FileKey, Long> names = new HashMap<>();
    private long earliest = Long.MAX_VALUE;

    ScanEchoes(int max) {
        this.max = max;
    }

    /** Keys of the directory being listed now, until {@link #listed}. */
    private final java.util.List<FileKey> listing = new java.util.ArrayList<>();

    /** A scan reported {@code file}; its echo may still be queued. */
    void remember(FileKey file) {
        if (names.size() + listing.size() < max) {
            listing.add(file);
        }
    }

    /**
     * The directory whose entries were just remembered is listed to its end: their echoes were
     * queued by now, so they are read by {@code until} (bytes read so far plus bytes queued now).
     */
    void listed(long until) {
        for (FileKey k : listing) {
            names.put(k, until);
        }
        if (!listing.isEmpty()) {
            earliest = Math.min(earliest, until);
        }
        listing.clear();
    }

    /** @return true when this creation was already reported by a scan */
    boolean isEcho(FileKey file) {
        return names.remove(file) != null;
    }

    void forget(FileKey file) {
        names.remove(file);
    }

    /** Drops what can no longer echo once {@code readPosition} bytes were read and handled. */
    void expire(long readPosition) {
        if (readPosition < earliest) {
            return;
        }
        names.values().removeIf(until -> until <= readPosition);
        earliest = names.values().stream().mapToLong(Long::longValue).min().orElse(Long.MAX_VALUE);
    }

    void clear() {
        listing.clear();
        names.clear();
        earliest = Long.MAX_VALUE;
    }
}
