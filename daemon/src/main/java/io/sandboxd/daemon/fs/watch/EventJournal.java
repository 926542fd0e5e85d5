package io.sandboxd.daemon.fs.watch;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The retained events of one watch, in sequence order, bounded by count and trimmed further when
 * the daemon's watch memory runs short. One writer (the watch thread) and any number of readers,
 * each with its own cursor: a reader costs no memory here, so a slow client can never make the
 * journal grow; when the events after its cursor are dropped it is told ({@link Read#expired()})
 * and the stream sends {@code resync}.
 *
 * <p>{@link #floor()} is the sequence number after which every event of this watch is still
 * retained: a cursor at or above it resumes without a gap.
 */
final class EventJournal {
    /** What a reader gets. */
    record Read(List<WatchEvent> events, boolean expired, boolean ended) {
        static final Read NOTHING = new Read(List.of(), false, false);
        static final Read EXPIRED = new Read(List.of(), true, false);
        static final Read ENDED = new Read(List.of(), false, true);
    }

    private final int maxEvents;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition appended = lock.newCondition();
    private WatchEvent[] ring = new WatchEvent[64];
    private int head;
    private int size;
    private long floor;
    private long last;
    private long bytes;
    private boolean closed;

    /** @param createdAt the daemon's last sequence number when the watch started: the first floor */
    EventJournal(int maxEvents, long createdAt) {
        this.maxEvents = maxEvents;
        this.floor = createdAt;
        this.last = createdAt;
    }

    /**
     * Appends events in sequence order and wakes the readers; beyond the count bound the oldest
     * go (raising the floor).
     *
     * @return the change in retained bytes
     */
    long append(List<WatchEvent> events) {
        long before;
        lock.lock();
        try {
            before = bytes;
            for (WatchEvent e : events) {
                if (size == maxEvents) {
                    dropOldest();
                }
                if (size == ring.length) {
                    grow();
                }
                ring[(head + size) % ring.length] = e;
                size++;
                bytes += e.retainedBytes();
                last = e.seq();
            }
            appended.signalAll();
            return bytes - before;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Drops the oldest events until at least {@code wanted} bytes are freed or none are left.
     *
     * @return the bytes freed
     */
    long trim(long wanted) {
        lock.lock();
        try {
            long before = bytes;
            while (size > 0 && before - bytes < wanted) {
                dropOldest();
            }
            return before - bytes;
        } finally {
            lock.unlock();
        }
    }

    /** No more events; readers get what is retained, then {@link Read#ended()}. */
    void close() {
        lock.lock();
        try {
            closed = true;
            appended.signalAll();
        } finally {
            lock.unlock();
        }
    }

    boolean isClosed() {
        lock.lock();
        try {
            return closed;
        } finally {
            lock.unlock();
        }
    }

    long bytes() {
        lock.lock();
        try {
            return bytes;
        } finally {
            lock.unlock();
        }
    }

    long floor() {
        lock.lock();
        try {
            return floor;
        } finally {
            lock.unlock();
        }
    }

    /** The newest event's sequence number (the creation point while there is none). */
    long last() {
        lock.lock();
        try {
            return last;
        } finally {
            lock.unlock();
        }
    }

    /**
     * The events after {@code cursor}, at most {@code max}, waiting up to {@code waitNanos} for
     * one to arrive.
     */
    Read read(long cursor, int max, long waitNanos) throws InterruptedException {
        lock.lock();
        try {
            long remaining = waitNanos;
            while (true) {
                if (cursor < floor) {
                    return Read.EXPIRED;
                }
                int from = firstAfter(cursor);
                if (from < size) {
                    int n = Math.min(max, size - from);
                    List<WatchEvent> out = new ArrayList<>(n);
                    for (int i = 0; i < n; i++) {
                        out.add(ring[(head + from + i) % ring.length]);
                    }
                    return new Read(out, false, false);
                }
                if (closed) {
                    return Read.ENDED;
                }
                if (remaining <= 0) {
                    return Read.NOTHING;
                }
                remaining = appended.awaitNanos(remaining);
            }
        } finally {
            lock.unlock();
        }
    }

    /** Index (0 = oldest) of the first retained event with a sequence number above {@code cursor}. */
    private int firstAfter(long cursor) {
        int lo = 0;
        int hi = size;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (ring[(head + mid) % ring.length].seq() <= cursor) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    private void dropOldest() {
        WatchEvent e = ring[head];
        ring[head] = null;
        head = (head + 1) % ring.length;
        size--;
        bytes -= e.retainedBytes();
        floor = e.seq();
    }

    private void grow() {
        WatchEvent[] bigger = new WatchEvent[Math.min(Math.max(64, ring.length * 2), Math.max(maxEvents, 64))];
        for (int i = 0; i < size; i++) {
            bigger[i] = ring[(head + i) % ring.length];
        }
        ring = bigger;
        head = 0;
    }

    /** For tests of the bounds. */
    int size() {
        lock.lock();
        try {
            return size;
        } finally {
            lock.unlock();
        }
    }
}
