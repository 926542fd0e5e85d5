package io.sandboxd.reliability.soak;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts requests sent to the daemon (each HTTP request and each RPC), operations per kind, and
 * wrong answers. Keeps the first {@link #KEPT_ERRORS} error descriptions.
 */
public final class Tally {
    static final int KEPT_ERRORS = 50;

    private final LongAdder requests = new LongAdder();
    private final LongAdder errors = new LongAdder();
    private final Map<String, LongAdder> ops = new ConcurrentHashMap<>();
    private final ConcurrentLinkedQueue<String> firstErrors = new ConcurrentLinkedQueue<>();
    private final AtomicInteger kept = new AtomicInteger();

    public void request() {
        requests.increment();
    }

    public void op(String name) {
        ops.computeIfAbsent(name, k -> new LongAdder()).increment();
    }

    public void error(String op, String description) {
        errors.increment();
        if (kept.incrementAndGet() <= KEPT_ERRORS) {
            firstErrors.add(op + ": " + description);
        }
    }

    public long requests() {
        return requests.sum();
    }

    public long errors() {
        return errors.sum();
    }

    public Map<String, Long> opCounts() {
        Map<String, Long> m = new TreeMap<>();
        ops.forEach((k, v) -> m.put(k, v.sum()));
        return m;
    }

    public java.util.List<String> firstErrors() {
        return java.util.List.copyOf(firstErrors);
    }
}
