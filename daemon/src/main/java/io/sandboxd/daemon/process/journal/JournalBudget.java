package io.sandboxd.daemon.process.journal;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The daemon-wide cap on journalled bytes ({@code --journal-total-cap}). Segments join a queue in
 * the order they were created, so when the total goes over the cap the globally oldest bytes go
 * first, whichever process they belong to; their readers then see a gap.
 */
public final class JournalBudget {
    private final long cap;
    private final AtomicLong total = new AtomicLong();
    private final ConcurrentLinkedQueue<Segment> order = new ConcurrentLinkedQueue<>();

    public JournalBudget(long cap) {
        this.cap = cap;
    }

    public long cap() {
        return cap;
    }

    /** Bytes currently retained by every journal. */
    public long total() {
        return total.get();
    }

    void created(Segment s) {
        order.add(s);
    }

    void added(long n) {
        total.addAndGet(n);
    }

    void removed(Segment s, long n) {
        order.remove(s);
        total.addAndGet(-n);
    }

    /** Evicts oldest segments until the total is within the cap. Call without holding a journal lock. */
    void enforce() {
        while (total.get() > cap) {
            Segment oldest = order.peek();
            if (oldest == null) {
                return;
            }
            if (!oldest.owner().evict(oldest)) {
                order.remove(oldest); // already gone (retention or close got there first)
            }
        }
    }
}
