package io.sandboxd.controller.reconcile;

import io.sandboxd.controller.core.Blueprints;
import io.sandboxd.controller.core.Copies;
import io.sandboxd.controller.core.PoolSandboxes;
import io.sandboxd.controller.model.SandboxSpec;
import io.sandboxd.controller.model.SandboxTemplate;
import io.sandboxd.controller.model.SandboxWarmPool;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The spec of a pool's new members and its JSON, built once per pool and template version instead
 * of once per member: building it deep-copies the template's pod template (a serialization and a
 * parse), and serializing it again for the create was the larger part of a member's create (JFR,
 * warm burst, issue 23). Keyed by the pool's identity (its uid, so its name, which the members'
 * pod template labels carry), then checked like {@link TemplateHashMemo}: the template's identity
 * and resourceVersion.
 */
final class MemberSpecMemo {
    /** Pools remembered at most; past it the memo starts over (one build each is all it costs). */
    static final int MAX_POOLS = 1024;

    /** A member spec, shared by the members built from it, and its JSON. Never changed. */
    record MemberSpec(SandboxSpec spec, String json) {}

    /** The template a pool's members were last built from. The pool's name never changes under its key. */
    private record Entry(String templateKey, String templateVersion, MemberSpec member) {}

    private final ConcurrentHashMap<String, Entry> byPool = new ConcurrentHashMap<>();

    MemberSpec of(SandboxWarmPool pool, SandboxTemplate t, Blueprints.Hashes hashes) {
        String version = t.getMetadata().getResourceVersion();
        if (version == null) return build(pool, t, hashes); // not from the API server: nothing to key on
        String poolKey = TemplateHashMemo.identity(pool);
        String tplKey = TemplateHashMemo.identity(t);
        Entry e = byPool.get(poolKey);
        if (e != null && e.templateVersion().equals(version) && e.templateKey().equals(tplKey)) {
            return e.member();
        }
        MemberSpec m = build(pool, t, hashes);
        if (byPool.size() >= MAX_POOLS) byPool.clear();
        byPool.put(poolKey, new Entry(tplKey, version, m));
        return m;
    }

    private static MemberSpec build(SandboxWarmPool pool, SandboxTemplate t, Blueprints.Hashes hashes) {
        SandboxSpec spec = PoolSandboxes.spec(pool, t, hashes, true);
        return new MemberSpec(spec, Copies.json(spec));
    }
}
