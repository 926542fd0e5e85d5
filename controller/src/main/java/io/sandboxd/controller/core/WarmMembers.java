package io.sandboxd.controller.core;

import io.fabric8.kubernetes.api.model.OwnerReference;
import io.sandboxd.controller.model.Sandbox;
import io.sandboxd.controller.model.SandboxTemplate;
import io.sandboxd.controller.model.SandboxWarmPool;
import java.util.Map;

/** Which Sandboxes a claim may adopt (§5.4): the pure rules behind the warm-pool ledger. */
public final class WarmMembers {
    private WarmMembers() {}

    /** The pool a Sandbox is an available member of: name and UID of its controlling pool. */
    public record PoolRef(String namespace, String name, String uid) {}

    /**
     * The pool whose unclaimed, Ready member this is, or null: controlled by a SandboxWarmPool,
     * carrying the pool and template-ref labels, not being deleted, Ready.
     */
    public static PoolRef availableIn(Sandbox sb) {
        if (sb.getMetadata().getDeletionTimestamp() != null || !PoolSandboxes.ready(sb)) return null;
        Map<String, String> l = sb.getMetadata().getLabels();
        if (l == null || l.get(Keys.WARM_POOL_SANDBOX) == null || !l.containsKey(Keys.TEMPLATE_REF_HASH)) return null;
        OwnerReference ctl = Ownership.controllerOf(sb);
        if (ctl == null
                || !SandboxWarmPool.KIND.equals(ctl.getKind())
                || !Keys.EXT_GROUP.equals(Ownership.groupOf(ctl.getApiVersion()))) {
            return null;
        }
        if (!NameHash.of(ctl.getName()).equals(l.get(Keys.WARM_POOL_SANDBOX))) return null;
        return new PoolRef(sb.getMetadata().getNamespace(), ctl.getName(), ctl.getUid());
    }

    /**
     * Whether a claim of {@code pool} may adopt the member now: available in this very pool
     * object (same UID, not a namesake), and under Recreate not built from an older template.
     */
    public static boolean adoptable(Sandbox sb, SandboxWarmPool pool, SandboxTemplate tpl) {
        PoolRef in = availableIn(sb);
        return in != null
                && in.name().equals(pool.getMetadata().getName())
                && in.uid().equals(pool.getMetadata().getUid())
                && in.namespace().equals(pool.getMetadata().getNamespace())
                && !(pool.getSpec().recreate() && Blueprints.stale(sb, tpl));
    }
}
