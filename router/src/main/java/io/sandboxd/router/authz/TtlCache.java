package io.sandboxd.router.authz;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * A bounded LRU whose entries expire a fixed time after they were put: authorization verdicts may
 * be reused for a short while and never grow without bound. Thread-safe; keys are never tokens
 * (callers key by the token's SHA-256).
 */
final class TtlCache<K, V> {
    private record Entry<V>(V value, long expiresAtNanos) {}

    private final long ttlNanos;
    private final LongSupplier clock;
    private final Map<K, Entry<V>> map;

    TtlCache(long ttlNanos, int maxEntries, LongSupplier clock) {
        if (ttlNanos <= 0 || maxEntries <= 0) {
            throw new IllegalArgumentException("cache TTL and size must be positive");
        }
        this.ttlNanos = ttlNanos;
        this.clock = clock;
        this.map = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<K, Entry<V>> eldest) {
                return size() > maxEntries;
            }
        };
    }

    /** The live value, or null (an expired entry is dropped). */
    synchronized V get(K key) {
        Entry<V> e = map.get(key);
        if (e == null) {
            return null;
        }
        if (e.expiresAtNanos() - clock.getAsLong() <= 0) {
            map.remove(key);
            return null;
        }
        return e.value();
    }

    synchronized void put(K key, V value) {
        map.put(key, new Entry<>(value, clock.getAsLong() + ttlNanos));
    }

    synchronized int size() {
        return map.size();
    }
}
