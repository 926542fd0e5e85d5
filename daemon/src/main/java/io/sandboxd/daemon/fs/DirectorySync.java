package io.sandboxd.daemon.fs;

import java.util.concurrent.ConcurrentHashMap;

/**
 * Group commit of directory fsyncs after renames (runtime-contract §2.4: rename, then fsync of the
 * directory). An fsync of a directory makes durable every entry change made in it before the
 * fsync started, so concurrent uploads into one directory can share one: each caller takes a
 * ticket after its rename and returns only once an fsync that <em>started after</em> that ticket
 * was taken has finished. At most one fsync per directory runs at a time; whoever finds none
 * running becomes the leader and covers every ticket issued so far.
 *
 * <p>Directories are told apart by (device, inode), not by name, so a directory renamed meanwhile
 * cannot be covered by an fsync of another one. State exists only while a caller uses it.
 */
final class DirectorySync {
    /** Syncs the directory; best effort, like a single fsync (errors are the caller's concern). */
    @FunctionalInterface
    interface Fsync {
        void run();
    }

    record Key(long dev, long ino) {}

    private static final class Group {
        /** Callers between acquire and release; guarded by the map's per-key compute. */
        int users;

        private long issued;
        private long durable;
        private boolean running;

        synchronized long ticket() {
            return ++issued;
        }

        void await(long ticket, Fsync fsync) throws InterruptedException {
            long covers;
            synchronized (this) {
                while (true) {
                    if (durable >= ticket) {
                        return;
                    }
                    if (!running) {
                        running = true;
                        covers = issued; // every rename that took a ticket happened before this fsync starts
                        break;
                    }
                    wait();
                }
            }
            try {
                fsync.run();
            } finally {
                synchronized (this) {
                    running = false;
                    if (covers > durable) {
                        durable = covers;
                    }
                    notifyAll();
                }
            }
        }
    }

    private final ConcurrentHashMap<Key, Group> groups = new ConcurrentHashMap<>();

    /**
     * Call after the rename into the directory {@code key}; returns once an fsync of that
     * directory that started after this call has completed (run by this thread or another).
     * On interrupt, runs the fsync itself rather than return uncovered.
     */
    void syncAfterRename(Key key, Fsync fsync) {
        Group g = groups.compute(key, (k, v) -> {
            Group x = v == null ? new Group() : v;
            x.users++;
            return x;
        });
        try {
            long ticket = g.ticket();
            try {
                g.await(ticket, fsync);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                fsync.run();
            }
        } finally {
            groups.computeIfPresent(key, (k, v) -> --v.users == 0 ? null : v);
        }
    }

    /** Directories with callers in flight (tests: state does not leak). */
    int activeDirectories() {
        return groups.size();
    }
}
