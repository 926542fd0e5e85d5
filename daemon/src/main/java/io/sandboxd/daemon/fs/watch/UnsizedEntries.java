package io.sandboxd.daemon.fs.watch;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Predicate;

/**
 * Files reported without a size because their directory had already moved on when the event was
 * handled: the kernel's events lag the tree, so a file renamed and then its directory renamed
 * (or moved into another watched directory) cannot be found under the path the first event
 * names. Once the directory's own move has been handled its path is current again, the file is
 * stat'ed once more and its size reported ({@code attributes}). Bounded: at most {@link #MAX}
 * files, each tried at the end of every cycle of the watch thread for {@link #TRY_NANOS} (a count
 * of cycles would not do: while the kernel's events trickle in, a cycle may handle one event);
 * beyond that the event keeps size -1 ("unknown", as for a file deleted meanwhile). Watch thread
 * only.
 */
final class UnsizedEntries {
    static final int MAX = 4096;
    static final long TRY_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(2);

    /** File → until when it is tried ({@link System#nanoTime()}). */
    private final LinkedHashMap<FileKey, Long> tries = new LinkedHashMap<>();

    void add(FileKey k, long nowNanos) {
        if (tries.size() < MAX) {
            tries.putIfAbsent(k, nowNanos + TRY_NANOS);
        }
    }

    /** {@code k} was deleted or moved away: a later event says where it is (or that it is gone). */
    void forget(FileKey k) {
        if (!tries.isEmpty()) {
            tries.remove(k);
        }
    }

    void clear() {
        tries.clear();
    }

    /**
     * Tries each file once more: {@code resolved} reports it and answers true when it could be
     * stat'ed (or can never be: its directory is gone), false to try again next cycle.
     */
    void retry(Predicate<FileKey> resolved, long nowNanos) {
        if (tries.isEmpty()) {
            return;
        }
        for (Iterator<Map.Entry<FileKey, Long>> it = tries.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<FileKey, Long> e = it.next();
            if (resolved.test(e.getKey()) || nowNanos - e.getValue() > 0) {
                it.remove();
            }
        }
    }
}
