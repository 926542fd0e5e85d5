package io.sandboxd.controller.reconcile;

import io.javaoperatorsdk.operator.OperatorException;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.IndexerResourceCache;
import io.javaoperatorsdk.operator.processing.event.source.SecondaryToPrimaryMapper;
import io.sandboxd.controller.core.Keys;
import io.sandboxd.controller.model.Sandbox;
import io.sandboxd.controller.model.SandboxClaim;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * The Sandbox controller's own watch and cache, serving the claim and pool controllers too: one
 * Sandbox watch in the whole process. Each event reaches, in this order, the {@link WarmPoolLedger}
 * (so a reconcile it sets off sees it there), then the claim controller's and the pool controller's
 * {@link SharedSandboxEvents}. Events come through {@link SandboxEventRelay},
 * which JOSDK hands every event of the Sandbox controller's primaries before its own filters.
 *
 * <p>Why: every Sandbox watch parses every Sandbox event, and a warm claim moves five Sandboxes
 * (the adoption, the adopted one's status, the replacement's create and two status writes). With
 * a second watch for the claim and pool controllers, a warm claim cost about 16 watch events.
 *
 * <p>Reads: {@link #get} lays the claim controller's own recent writes ({@link RecentWrites}) over
 * the cache; {@link #byIndex} reads the cache alone.
 */
public final class SharedSandboxes {
    /** Sandboxes by the claim that controls them: namespace/name. */
    private static final String BY_CLAIM = "sandbox-controlling-claim";

    /** The claim that controls a Sandbox, if any. */
    static final SecondaryToPrimaryMapper<Sandbox> CONTROLLING_CLAIM =
            new OwnerOrSameNameMapper<>(Keys.EXT_GROUP, SandboxClaim.KIND, false);

    private final WarmPoolLedger ledger;
    private final Duration syncTimeout;
    private final CountDownLatch synced = new CountDownLatch(1);
    private final List<SandboxListener> listeners = new CopyOnWriteArrayList<>();
    private volatile IndexerResourceCache<Sandbox> cache;
    private volatile RecentWrites<Sandbox> recent;

    /**
     * @param syncTimeout how long the claim and pool controllers wait at start for the Sandbox
     *     controller's first list
     */
    public SharedSandboxes(WarmPoolLedger ledger, Duration syncTimeout) {
        this.ledger = ledger;
        this.syncTimeout = syncTimeout;
    }

    /** What the claim and pool controllers' event sources hear. */
    interface SandboxListener {
        /** @param news false for the echo of the claim controller's own write, or an older version */
        void added(Sandbox sb, boolean news);

        void updated(Sandbox old, Sandbox sb, boolean news);

        void deleted(Sandbox sb);
    }

    /** The Sandbox controller's event source that feeds this; called when that controller is registered. */
    SandboxEventRelay relayFrom(EventSourceContext<Sandbox> ctx) {
        if (cache != null) throw new IllegalStateException("the Sandbox controller was registered twice");
        IndexerResourceCache<Sandbox> primaries = ctx.getPrimaryCache();
        primaries.addIndexer(BY_CLAIM, sb -> CONTROLLING_CLAIM.toPrimaryResourceIDs(sb).stream()
                .map(SharedSandboxes::key)
                .toList());
        recent = new RecentWrites<>(primaries::get);
        cache = primaries;
        return new SandboxEventRelay(this);
    }

    void listen(SandboxListener l) {
        requireCache();
        listeners.add(l);
    }

    void addIndexer(String name, Function<Sandbox, List<String>> indexer) {
        requireCache().addIndexer(name, indexer);
    }

    private IndexerResourceCache<Sandbox> requireCache() {
        IndexerResourceCache<Sandbox> c = cache;
        if (c == null)
            throw new IllegalStateException(
                    "the Sandbox controller must be registered before the claim and pool controllers: its watch serves them");
        return c;
    }

    // ---- from the relay (the Sandbox informer's event thread) ---------------------------------

    void added(Sandbox sb) {
        ledger.upsert(sb);
        boolean news = recent.onEvent(sb);
        for (SandboxListener l : listeners) l.added(sb, news);
    }

    void updated(Sandbox old, Sandbox sb) {
        ledger.upsert(sb);
        boolean news = recent.onEvent(sb);
        for (SandboxListener l : listeners) l.updated(old, sb, news);
    }

    void deleted(Sandbox sb) {
        ledger.delete(sb);
        recent.onDelete(sb);
        for (SandboxListener l : listeners) l.deleted(sb);
    }

    /**
     * The Sandbox controller's informer has made its first list. The ledger takes it from the cache
     * at once: the events of that list reach it a moment later, and a claim reconciled before them
     * would find the pool empty and go cold.
     */
    void synced() {
        requireCache().list().forEach(ledger::upsert);
        synced.countDown();
    }

    /**
     * Blocks a claim or pool event source's start until the cache holds the first list, so no
     * reconcile of theirs reads an empty cache. JOSDK starts the controllers at once, each on its
     * own thread, so the Sandbox controller's start is never queued behind this wait.
     */
    void awaitSynced(String who) {
        try {
            if (!synced.await(syncTimeout.toMillis(), TimeUnit.MILLISECONDS))
                throw new OperatorException(who + ": the Sandbox controller's informer did not list Sandboxes within "
                        + syncTimeout.toSeconds() + " s (the cache sync timeout)");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new OperatorException(who + ": interrupted while waiting for the Sandbox informer", e);
        }
    }

    // ---- reads ---------------------------------------------------------------------------------

    /** The claim controller's recent write of it if the watch has not caught up, else the cached copy. */
    Optional<Sandbox> get(ResourceID id) {
        return recent.get(id);
    }

    List<Sandbox> byIndex(String index, String key) {
        return requireCache().byIndex(index, key);
    }

    /** Sandboxes the claim controls, its recent writes included (as {@link #get} reads them). */
    List<Sandbox> controlledBy(SandboxClaim claim) {
        String k = key(ResourceID.fromResource(claim));
        Map<ResourceID, Sandbox> out = new LinkedHashMap<>();
        for (Sandbox sb : byIndex(BY_CLAIM, k)) {
            ResourceID id = ResourceID.fromResource(sb);
            out.put(id, get(id).orElse(sb));
        }
        for (Sandbox sb : recent.pending()) {
            for (ResourceID c : CONTROLLING_CLAIM.toPrimaryResourceIDs(sb)) {
                if (key(c).equals(k)) out.put(ResourceID.fromResource(sb), sb);
            }
        }
        return List.copyOf(out.values());
    }

    /** Records the answer to the claim controller's create or update of a Sandbox. */
    void wrote(Sandbox answer) {
        recent.wrote(answer);
    }

    private static String key(ResourceID id) {
        return id.getNamespace().orElse("") + "/" + id.getName();
    }
}
