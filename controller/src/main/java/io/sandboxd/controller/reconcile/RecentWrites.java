package io.sandboxd.controller.reconcile;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Objects a reconciler wrote whose watch events have not arrived yet, laid over a cache that does
 * not know them. Two jobs, the same as JOSDK's temporary cache in its own informers: a reconcile
 * right after a write reads the write, not the version before it (a claim that reads its adopted
 * Sandbox as still a pool member would adopt a second one); and the write's own echo sets off no
 * reconcile. JOSDK's cannot serve here because the cache underneath is another controller's
 * primary cache, where an entry would also hide the echo from that controller.
 *
 * <p>Versions are ordered as the API server's decimal resourceVersions. A version that is not a
 * decimal number orders nothing: such a write is kept until the next event of its object.
 */
final class RecentWrites<R extends HasMetadata> {
    private final Map<ResourceID, R> written = new ConcurrentHashMap<>();
    private final Function<ResourceID, Optional<R>> cache;

    /** @param cache what the watch has delivered so far */
    RecentWrites(Function<ResourceID, Optional<R>> cache) {
        this.cache = cache;
    }

    /** Records the API's answer to a create or update, unless the cache already holds it or later. */
    synchronized void wrote(R answer) {
        ResourceID id = ResourceID.fromResource(answer);
        R cached = cache.apply(id).orElse(null);
        if (cached != null && knownAlready(version(cached), version(answer))) return;
        written.put(id, answer);
    }

    /**
     * An added or updated object as its watch delivers it. Returns whether it is news: false for
     * the echo of a recorded write and for a version older than one (a newer event follows).
     */
    synchronized boolean onEvent(R event) {
        ResourceID id = ResourceID.fromResource(event);
        R mine = written.get(id);
        if (mine == null) return true;
        int c = order(version(event), version(mine));
        if (c < 0) return false;
        written.remove(id);
        return c > 0;
    }

    synchronized void onDelete(R gone) {
        written.remove(ResourceID.fromResource(gone));
    }

    /** The recorded write, else the cache's copy. */
    Optional<R> get(ResourceID id) {
        R mine = written.get(id);
        return mine != null ? Optional.of(mine) : cache.apply(id);
    }

    /** The recorded writes: a handful at a time, each gone with its echo. */
    List<R> pending() {
        return new ArrayList<>(written.values());
    }

    private static boolean knownAlready(String cached, String answer) {
        if (cached == null || answer == null) return false;
        return cached.equals(answer) || decimal(cached) && decimal(answer) && order(cached, answer) > 0;
    }

    private static String version(HasMetadata o) {
        return o.getMetadata().getResourceVersion();
    }

    /**
     * Negative, zero or positive as {@code a} is older than, the same as, or newer than {@code b}.
     * Two versions that are not both decimal numbers are the same when equal and otherwise {@code a}
     * counts as newer, so an event always replaces a write it cannot be ordered against.
     */
    static int order(String a, String b) {
        if (a == null || b == null) return a == null && b == null ? 0 : 1;
        if (a.equals(b)) return 0;
        if (!decimal(a) || !decimal(b)) return 1;
        if (a.length() != b.length()) return Integer.compare(a.length(), b.length());
        return Integer.signum(a.compareTo(b));
    }

    private static boolean decimal(String v) {
        if (v.isEmpty() || v.length() > 1 && v.charAt(0) == '0') return false;
        for (int i = 0; i < v.length(); i++) {
            char ch = v.charAt(i);
            if (ch < '0' || ch > '9') return false;
        }
        return true;
    }
}
