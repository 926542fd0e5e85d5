package io.sandboxd.daemon.fs.watch;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Coalesces {@code modified} per file (runtime-contract §4.2). Pure: time comes in as arguments.
 *
 * <p>A write starts a window; further writes inside it add nothing, and when it ends one
 * {@code modified} goes out (so a file written continuously reports once per window, never
 * starving). A close after writing always yields one at once, whether or not the window had
 * already reported: that is the event a syncing client waits for, and it costs an editor's save
 * a single event (its writes and its close fall into one window). A file deleted with writes
 * pending reports none; a file moved with writes pending reports them before the move.
 *
 * @param <K> what identifies a file (its directory's watch and its name)
 */
final class ModifyCoalescer<K> {
    private final long windowNanos;
    private final int maxTracked;
    /** Writes not yet reported, in window order (so in deadline order). */
    private final LinkedHashMap<K, Long> pending = new LinkedHashMap<>();
    /** Written since the last close, already reported by a window. */
    private final Set<K> written = new HashSet<>();

    /**
     * @param maxTracked files tracked at most; beyond, the oldest window is reported early (a
     *     process with more files open for writing than this gets some extra events, never fewer)
     */
    ModifyCoalescer(long windowNanos, int maxTracked) {
        this.windowNanos = windowNanos;
        this.maxTracked = maxTracked;
    }

    /**
     * A write to {@code file}.
     *
     * @return a file whose window had to be closed early to stay within the bound (report it now), or null
     */
    K written(K file, long now) {
        if (pending.containsKey(file)) {
            return null;
        }
        written.remove(file);
        pending.put(file, now + windowNanos);
        if (pending.size() + written.size() > maxTracked) {
            if (!written.isEmpty()) {
                Iterator<K> it = written.iterator();
                it.next();
                it.remove();
                return null;
            }
            Iterator<Map.Entry<K, Long>> it = pending.entrySet().iterator();
            K oldest = it.next().getKey();
            it.remove();
            return oldest;
        }
        return null;
    }

    /** @return whether the close of {@code file} reports a {@code modified} now */
    boolean closedAfterWrite(K file) {
        return pending.remove(file) != null | written.remove(file);
    }

    /** The file is gone: nothing of it is reported. */
    void forget(K file) {
        pending.remove(file);
        written.remove(file);
    }

    /**
     * The file is renamed: its unreported writes are reported now (before the move), and a later
     * close under the new name still reports.
     *
     * @return whether a {@code modified} of the old name is due now
     */
    boolean moved(K from, K to) {
        boolean due = pending.remove(from) != null;
        boolean wasWritten = written.remove(from);
        if (due || wasWritten) {
            written.add(to);
        }
        return due;
    }

    /** The files whose window ended by {@code now}; they stay tracked until closed. */
    List<K> due(long now) {
        List<K> out = new ArrayList<>();
        Iterator<Map.Entry<K, Long>> it = pending.entrySet().iterator();
        while (it.hasNext()) {
            Map.Entry<K, Long> e = it.next();
            if (e.getValue() - now > 0) {
                break;
            }
            out.add(e.getKey());
            written.add(e.getKey());
            it.remove();
        }
        return out;
    }

    /** When the next window ends, or {@code fallback} when none is open. */
    long nextDeadline(long fallback) {
        return pending.isEmpty() ? fallback : pending.values().iterator().next();
    }

    /** Everything tracked is dropped (after a queue overflow, the client re-lists anyway). */
    void clear() {
        pending.clear();
        written.clear();
    }

    int tracked() {
        return pending.size() + written.size();
    }
}
