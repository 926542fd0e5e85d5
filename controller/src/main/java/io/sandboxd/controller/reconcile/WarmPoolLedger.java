package io.sandboxd.controller.reconcile;

import io.sandboxd.controller.core.PoolSandboxes;
import io.sandboxd.controller.core.WarmMembers;
import io.sandboxd.controller.model.Sandbox;
import java.time.Instant;
import java.util.Comparator;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.function.Predicate;

/**
 * Ready, unclaimed warm-pool members per pool, oldest first, kept from the claim controller's
 * Sandbox informer: choosing a member costs no request and no scan of the pool. A member taken
 * by one claim is reserved until its adoption lands or is lost, so concurrent claims in this
 * process never race each other for one Sandbox (the adoption patch's resourceVersion test still
 * guards against every other writer). Thread-safe; the informer thread and the claim workers
 * call it concurrently.
 */
public final class WarmPoolLedger {
    /**
     * One offered member, its creation time parsed once: the set compares entries on every insert
     * and removal, and parsing the timestamp in each comparison was 1 % of the controller's CPU
     * samples in a warm burst (JFR, issue 23).
     */
    private record Entry(Sandbox sandbox, String key, Instant created) {
        /** A newer version of the member {@code previous} (null: none) held: its creation time reused. */
        static Entry of(Sandbox sb, String key, Entry previous) {
            String ts = sb.getMetadata().getCreationTimestamp();
            Instant created = previous != null
                            && Objects.equals(
                                    ts, previous.sandbox().getMetadata().getCreationTimestamp())
                    ? previous.created()
                    : PoolSandboxes.created(sb);
            return new Entry(sb, key, created);
        }
    }

    /** The newest version seen of every available member, by "namespace/name". */
    private final Map<String, Entry> known = new ConcurrentHashMap<>();
    /** Members nobody has reserved, per "namespace/pool", in adoption order. */
    private final Map<String, ConcurrentSkipListSet<Entry>> available = new ConcurrentHashMap<>();

    private final Set<String> reserved = ConcurrentHashMap.newKeySet();

    /** Adoption order: oldest first (a missing creation time last), the name as tie-break. */
    private static final Comparator<Entry> ORDER = Comparator.comparing(Entry::created)
            .thenComparing(e -> e.sandbox().getMetadata().getName());

    private static String key(Sandbox sb) {
        return sb.getMetadata().getNamespace() + "/" + sb.getMetadata().getName();
    }

    private ConcurrentSkipListSet<Entry> queue(String ns, String pool) {
        return available.computeIfAbsent(ns + "/" + pool, k -> new ConcurrentSkipListSet<>(ORDER));
    }

    /**
     * An informer add or update. Synchronized with {@link #delete}: the informer thread calls both,
     * and at start-up {@link SharedSandboxes} fills the ledger from the cache while the first list's
     * events arrive.
     */
    public synchronized void upsert(Sandbox sb) {
        String k = key(sb);
        Entry old = known.get(k);
        if (old != null) offered(old.sandbox()).remove(old);
        WarmMembers.PoolRef pool = WarmMembers.availableIn(sb);
        if (pool == null) {
            known.remove(k);
            return;
        }
        Entry now = Entry.of(sb, k, old);
        known.put(k, now);
        if (!reserved.contains(k)) queue(pool.namespace(), pool.name()).add(now);
    }

    /** An informer delete. */
    public synchronized void delete(Sandbox sb) {
        String k = key(sb);
        Entry old = known.remove(k);
        if (old != null) offered(old.sandbox()).remove(old);
    }

    private ConcurrentSkipListSet<Entry> offered(Sandbox sb) {
        WarmMembers.PoolRef pool = WarmMembers.availableIn(sb);
        return pool == null ? new ConcurrentSkipListSet<>(ORDER) : queue(pool.namespace(), pool.name());
    }

    /**
     * Reserves and returns the oldest available member of the pool that {@code usable} accepts
     * (members it refuses stay out until the informer brings a newer version), or null.
     */
    public Sandbox take(String namespace, String pool, Predicate<Sandbox> usable) {
        ConcurrentSkipListSet<Entry> q = queue(namespace, pool);
        for (Entry e; (e = q.pollFirst()) != null; ) {
            if (!reserved.add(e.key())) continue;
            Entry now = known.get(e.key());
            if (now != null && usable.test(now.sandbox())) return now.sandbox();
            reserved.remove(e.key());
        }
        return null;
    }

    /** The adoption landed: the member leaves the ledger for good. */
    public void adopted(Sandbox member) {
        String k = key(member);
        known.remove(k);
        reserved.remove(k);
    }

    /**
     * The adoption was refused (someone changed the member first, or it is gone): offered again
     * at once if a newer version is already known, else when the informer brings one.
     */
    public void lost(Sandbox member) {
        String k = key(member);
        reserved.remove(k);
        Entry now = known.get(k);
        if (now != null
                && !Objects.equals(
                        now.sandbox().getMetadata().getResourceVersion(),
                        member.getMetadata().getResourceVersion())) {
            offered(now.sandbox()).add(now);
        }
    }

    /** Whether a claim in this process is adopting the member right now. */
    public boolean reserved(Sandbox sb) {
        return reserved.contains(key(sb));
    }

    /** Members a claim could take now. */
    public int available(String namespace, String pool) {
        return queue(namespace, pool).size();
    }
}
