package io.sandboxd.controller.core;

import io.sandboxd.controller.model.Sandbox;
import java.util.Map;
import java.util.Objects;

/**
 * Which updates of a Sandbox can change what its pool's reconcile decides. The pass reads a
 * member's labels (membership, launch-type, template hashes), its owner references, its
 * origin-pool annotation (which pool hears of it), its deletion, its spec (staleness; a spec change
 * bumps the generation) and whether it is Ready; nothing else.
 *
 * <p>Why: the pass walks every member of the pool, and without this filter each status write of
 * any member set one off: at 30 claims per second against a pool of 1,000 the pool controller was
 * a third of the controller's CPU samples, ~3.5 ms per claim (JFR, {@code sandboxd-bench
 * controller --rate 30}). A new member's first status (not yet Ready), an adopted Sandbox's later
 * status writes and annotation syncs no longer reach the pool.
 */
public final class PoolMemberChanges {
    private PoolMemberChanges() {}

    /** Whether the update from {@code old} to {@code now} may change its pool's decisions. */
    public static boolean relevant(Sandbox now, Sandbox old) {
        var n = now.getMetadata();
        var o = old.getMetadata();
        return !Objects.equals(n.getGeneration(), o.getGeneration())
                || !Objects.equals(n.getDeletionTimestamp(), o.getDeletionTimestamp())
                || !StatusOnlyChanges.sameEntries(n.getLabels(), o.getLabels())
                || !Objects.equals(n.getOwnerReferences(), o.getOwnerReferences())
                || !Objects.equals(originPool(n.getAnnotations()), originPool(o.getAnnotations()))
                || PoolSandboxes.ready(now) != PoolSandboxes.ready(old);
    }

    private static String originPool(Map<String, String> annotations) {
        return annotations == null ? null : annotations.get(Keys.ORIGIN_POOL);
    }
}
