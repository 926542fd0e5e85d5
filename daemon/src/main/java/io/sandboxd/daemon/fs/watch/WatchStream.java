package io.sandboxd.daemon.fs.watch;

import java.util.List;

/**
 * One client's view of a watch (runtime-contract §4.2): a cursor into the watch's journal. It
 * holds no events of its own, so a client that cannot keep up costs nothing: when the journal
 * has dropped events it had not read yet, it gets {@code resync} and goes on from the newest.
 * Single-threaded: one stream, one reader.
 */
public final class WatchStream implements AutoCloseable {
    /** What one {@link #next} returns: events in order, then, once, {@code ended}. */
    public record Batch(List<WatchEvent> events, boolean ended) {
        static final Batch NONE = new Batch(List.of(), false);
        static final Batch END = new Batch(List.of(), true);
    }

    private final WatchEngine engine;
    private final TreeWatch watch;
    private final EventJournal journal;
    private long cursor;
    private String pendingResync;
    private boolean ended;
    private boolean closed;

    /** @param resumeAfter the client's cursor, or null for live events only */
    WatchStream(WatchEngine engine, TreeWatch watch, Long resumeAfter) {
        this.engine = engine;
        this.watch = watch;
        this.journal = watch.journal;
        long last = journal.last();
        if (resumeAfter == null) {
            cursor = last;
        } else if (resumeAfter < journal.floor() || resumeAfter > last) {
            cursor = last; // not retained (or not from this run of the daemon): re-list and go on
            pendingResync = "cursor";
        } else {
            cursor = resumeAfter;
        }
    }

    /** The watched path as the client sees it ({@code /a/b}; invalid UTF-8 shown as U+FFFD). */
    public String watchedPath() {
        return "/" + WatchEngine.display(watch.key.watchedPath());
    }

    /** The sequence number of the last event handed out (or the starting point). */
    public long cursor() {
        return cursor;
    }

    /**
     * The next events, at most {@code max}, waiting up to {@code waitNanos} for one; an empty batch
     * when none came (time for a heartbeat).
     */
    public Batch next(long waitNanos, int max) throws InterruptedException {
        if (pendingResync != null) {
            WatchEvent r = WatchEvent.resync(cursor, watch.key.watchedPath(), pendingResync);
            pendingResync = null;
            return new Batch(List.of(r), false);
        }
        if (ended) {
            return Batch.END;
        }
        EventJournal.Read r = journal.read(cursor, max, waitNanos);
        if (r.expired()) {
            cursor = journal.last();
            return new Batch(List.of(WatchEvent.resync(cursor, watch.key.watchedPath(), "lagging")), false);
        }
        if (r.ended()) {
            ended = true;
            return Batch.END;
        }
        if (r.events().isEmpty()) {
            return Batch.NONE;
        }
        cursor = r.events().get(r.events().size() - 1).seq();
        return new Batch(r.events(), false);
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            engine.submit(() -> engine.detach(watch));
        } catch (IllegalStateException stopped) {
            // the engine is gone, and every watch with it
        }
    }
}
