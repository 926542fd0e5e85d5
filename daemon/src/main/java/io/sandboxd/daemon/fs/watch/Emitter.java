package io.sandboxd.daemon.fs.watch;

import io.sandboxd.daemon.fs.DirectoryHandles.Stat;
import io.sandboxd.daemon.fs.EntryType;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Numbers events and hands them to the watches' journals. One daemon-wide sequence, so a cursor
 * is a point in time that means the same to every watch; it starts at the daemon's start time in
 * microseconds, so the cursors a previous run of the daemon handed out are all below the first
 * one of this run (and resume to {@code resync}, never into unrelated events), while staying
 * below 2^53 for JavaScript clients. Watch thread only.
 *
 * <p>Events gather per watch and reach the journals together once per read from the kernel (one
 * wake-up of the readers per batch, not per event), or sooner when a batch grows large. The
 * journals' total size is kept under the memory bound by trimming the largest.
 */
final class Emitter {
    /** An outbox this full is appended at once: a scan of a huge new directory never piles up here. */
    private static final int FLUSH_AT = 1024;

    private final long memoryLimit;
    private final Set<TreeWatch> touched = new LinkedHashSet<>();
    private long seq;
    private long retained;

    Emitter(long memoryLimit, long startSeq) {
        this.memoryLimit = memoryLimit;
        this.seq = startSeq;
    }

    static long startSequence() {
        return System.currentTimeMillis() * 1000;
    }

    /** The last number handed out. */
    long current() {
        return seq;
    }

    /** A change of an entry, to every watch in {@code to}. */
    void change(List<TreeWatch> to, EventKind kind, String path, String oldPath, EntryType entry, Stat st) {
        if (to.isEmpty()) {
            return;
        }
        long size = -1;
        Instant mtime = null;
        if (st != null) {
            size = st.size();
            mtime = Instant.ofEpochSecond(st.mtimeSeconds(), st.mtimeNanos());
        }
        WatchEvent e = WatchEvent.change(++seq, kind, path, oldPath, entry, size, mtime);
        for (TreeWatch w : to) {
            add(w, e);
        }
    }

    void resync(TreeWatch w, String reason) {
        add(w, WatchEvent.resync(++seq, w.key.watchedPath(), reason));
    }

    void error(TreeWatch w, String reason, String message, String limit) {
        add(w, WatchEvent.error(++seq, w.key.watchedPath(), reason, message, limit));
    }

    /** {@code w} ended: its journal is closed at the next {@link #publish}. */
    void touch(TreeWatch w) {
        touched.add(w);
    }

    private void add(TreeWatch w, WatchEvent e) {
        w.outbox.add(e);
        touched.add(w);
        if (w.outbox.size() >= FLUSH_AT) {
            append(w);
        }
    }

    /** Hands every outbox to its journal, closes the journals of ended watches, enforces the memory bound. */
    void publish(Collection<TreeWatch> live) {
        if (touched.isEmpty()) {
            return;
        }
        for (TreeWatch w : touched) {
            append(w);
            if (w.ended) {
                w.journal.close();
                retained -= w.retainedBytes;
                w.retainedBytes = 0;
            }
        }
        touched.clear();
        while (retained > memoryLimit) {
            TreeWatch largest = null;
            for (TreeWatch w : live) {
                if (largest == null || w.retainedBytes > largest.retainedBytes) {
                    largest = w;
                }
            }
            if (largest == null) {
                break;
            }
            long freed = largest.journal.trim(retained - memoryLimit);
            largest.retainedBytes -= freed;
            retained -= freed;
            if (freed == 0) {
                break;
            }
        }
    }

    private void append(TreeWatch w) {
        if (w.outbox.isEmpty()) {
            return;
        }
        List<WatchEvent> batch = new ArrayList<>(w.outbox);
        w.outbox.clear();
        long delta = w.journal.append(batch);
        w.retainedBytes += delta;
        retained += delta;
    }

    long retainedBytes() {
        return retained;
    }
}
