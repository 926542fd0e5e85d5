package io.sandboxd.controller.reconcile;

import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The status a reconciler last wrote for each object, until its cache shows that write. A
 * reconcile set off by a child's event often starts before our own status write's event has
 * arrived; starting from the stale cached status it would write the same status again with a
 * new lastTransitionTime (measured: 21 claim status writes for 20 warm claims, 88 Sandbox
 * status writes for 40 Sandboxes). The memo holds while the cached object is at a version we
 * know is older than our write (the one we wrote over, and those of earlier writes not yet
 * seen); any other version (ours, or a newer one by someone else) ends it. No ordering of
 * resourceVersions is assumed: they are opaque. (JOSDK's handleRecentResourceUpdate on the
 * primary's event source does the same job, but in JOSDK 5.3.2 it also swallowed the reconcile
 * a claim's ttlSecondsAfterFinished needs: ClaimLifecycleIT.)
 */
final class StatusMemo<S> {
    private record Written<S>(Set<String> olderVersions, String resultVersion, S status) {}

    private final Map<String, Written<S>> written = new ConcurrentHashMap<>();

    /** The status to start from: what we last wrote, while the cache is older than that write. */
    S current(HasMetadata obj, S cached) {
        String uid = obj.getMetadata().getUid();
        Written<S> w = uid == null ? null : written.get(uid);
        if (w == null) return cached;
        if (w.olderVersions().contains(obj.getMetadata().getResourceVersion())) return w.status();
        written.remove(uid, w);
        return cached;
    }

    /** Whether {@code obj} is at the version our last status write of it made. */
    boolean madeVersionOf(HasMetadata obj) {
        String uid = obj.getMetadata().getUid();
        Written<S> w = uid == null ? null : written.get(uid);
        return w != null && w.resultVersion().equals(obj.getMetadata().getResourceVersion());
    }

    /** We wrote {@code status} over {@code read} (the version we reconciled); the write made {@code result}. */
    void wrote(HasMetadata read, HasMetadata result, S status) {
        String uid = read.getMetadata().getUid();
        if (uid == null) return;
        Set<String> older = new HashSet<>();
        older.add(read.getMetadata().getResourceVersion());
        Written<S> before = written.get(uid);
        if (before != null && before.olderVersions().contains(read.getMetadata().getResourceVersion())) {
            // The cache had not caught up with the earlier write either: it, too, is older than this one.
            older.addAll(before.olderVersions());
            older.add(before.resultVersion());
        }
        older.remove(result.getMetadata().getResourceVersion());
        written.put(uid, new Written<>(Set.copyOf(older), result.getMetadata().getResourceVersion(), status));
    }
}
