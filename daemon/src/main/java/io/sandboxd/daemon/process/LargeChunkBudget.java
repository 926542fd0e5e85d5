package io.sandboxd.daemon.process;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Bounds the memory that large output chunks can pin, across all processes. Every pipe may read
 * a {@link #BASE} chunk; bytes beyond it (up to {@code --stream-chunk-size}) come from this
 * shared budget and stay reserved until the consumer shows demand again (its transport queue
 * drained) or the source ends. Large chunks are what make a fast stream cheap per byte, but a
 * consumer that stalls right after receiving one pins it: without the budget, 1,000 stalled
 * streams could pin 1,000 full chunks.
 */
final class LargeChunkBudget {
    /** What any read may take without the budget (the old default chunk). */
    static final int BASE = 32 * 1024;

    private final AtomicLong available;

    LargeChunkBudget(long capacity) {
        this.available = new AtomicLong(capacity);
    }

    /** @return bytes granted, between 0 and {@code wanted} */
    long tryAcquire(long wanted) {
        while (true) {
            long a = available.get();
            long grant = Math.min(a, wanted);
            if (grant <= 0) {
                return 0;
            }
            if (available.compareAndSet(a, a - grant)) {
                return grant;
            }
        }
    }

    void release(long bytes) {
        if (bytes > 0) {
            available.addAndGet(bytes);
        }
    }

    long available() {
        return available.get();
    }
}
