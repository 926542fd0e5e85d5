package io.sandboxd.controller.reconcile;

import io.sandboxd.controller.core.PoolSandboxes;
import io.sandboxd.controller.core.WarmMembers;
import io.sandboxd.controller.model.Sandbox;
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
    private record Entry(Sandbox sandbox, String key) {}

    /** The newest version seen of every available member, by "namespace/name". */
    private final Map<String, Sandbox> known = new ConcurrentHashMap<>();
    /** Members nobody has reserved, per "namespace/pool", in adoption order. */
    private final Map<String, ConcurrentSkipListSet<Entry>> available = new ConcurrentHashMap<>();

    private final Set<String> reserved = ConcurrentHashMap.newKeySet();

    private static final java.util.Comparator<Entry> ORDER =
            (a, b) -> PoolSandboxes.oldestFirst().compare(a.sandbox(), b.sandbox());

    private static String key(Sandbox sb) {
        return sb.getMetadata().getNamespace() + "/" + sb.getMetadata().getName();
    }

    private ConcurrentSkipListSet<Entry> queue(String ns, String pool) {
        return available.computeIfAbsent(ns + "/" + pool, k -> new ConcurrentSkipListSet<>(ORDER));
    }

    /** An informer add or update. */
    public void upsert(Sandbox sb) {
        String k = key(sb);
        Sandbox old = known.get(k);
        if (old != null) offered(old).remove(new Entry(old, k));
        WarmMembers.PoolRef pool = WarmMembers.availableIn(sb);
        if (pool == null) {
            known.remove(k);
            return;
        }
        known.put(k, sb);
        if (!reserved.contains(k)) queue(pool.namespace(), pool.name()).add(new Entry(sb, k));
    }

    /** An informer delete. */
    public void delete(Sandbox sb) {
        String k = key(sb);
        Sandbox old = known.remove(k);
        if (old != null) offered(old).remove(new Entry(old, k));
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
            Sandbox sb = known.get(e.key());
            if (sb != null && usable.test(sb)) return sb;
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
        Sandbox now = known.get(k);
        if (now != null
                && !Objects.equals(
                        now.getMetadata().getResourceVersion(),
                        member.getMetadata().getResourceVersion())) {
            offered(now).add(new Entry(now, k));
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
