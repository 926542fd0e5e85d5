package io.sandboxd.controller.reconcile;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.sandboxd.controller.core.Blueprints;
import io.sandboxd.controller.model.SandboxTemplate;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A template's {@link Blueprints#hashes}, computed once per template version instead of once per
 * pool member built: each hash is a JSON serialization of the pod template, and building the
 * replacement members of a warm burst spent 2% of the controller's CPU samples on them (JFR,
 * 1,000 warm claims). Keyed by the template's identity and its resourceVersion, which the API
 * server changes with every write, so an edited template is hashed afresh.
 */
final class TemplateHashMemo {
    /** Templates remembered at most; past it the memo starts over (one hash each is all it costs). */
    static final int MAX_TEMPLATES = 1024;

    private record Entry(String resourceVersion, Blueprints.Hashes hashes) {}

    private final ConcurrentHashMap<String, Entry> byTemplate = new ConcurrentHashMap<>();

    Blueprints.Hashes of(SandboxTemplate t) {
        String version = t.getMetadata().getResourceVersion();
        if (version == null) return Blueprints.hashes(t); // not from the API server: nothing to key on
        String key = identity(t);
        Entry e = byTemplate.get(key);
        if (e != null && e.resourceVersion().equals(version)) return e.hashes();
        Blueprints.Hashes h = Blueprints.hashes(t);
        if (byTemplate.size() >= MAX_TEMPLATES) byTemplate.clear();
        byTemplate.put(key, new Entry(version, h));
        return h;
    }

    /** An object's uid, or namespace/name for one that has none (not from the API server). */
    static String identity(HasMetadata o) {
        return o.getMetadata().getUid() != null
                ? o.getMetadata().getUid()
                : o.getMetadata().getNamespace() + "/" + o.getMetadata().getName();
    }
}
