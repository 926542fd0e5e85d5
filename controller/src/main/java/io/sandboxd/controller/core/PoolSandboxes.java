package io.sandboxd.controller.core;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.sandboxd.controller.model.Conds;
import io.sandboxd.controller.model.Sandbox;
import io.sandboxd.controller.model.SandboxSpec;
import io.sandboxd.controller.model.SandboxTemplate;
import io.sandboxd.controller.model.SandboxWarmPool;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Pure warm-pool logic: building members, classifying them, choosing what to delete (§4). */
public final class PoolSandboxes {
    private PoolSandboxes() {}

    private static final char[] ALPHABET = "bcdfghjklmnpqrstvwxz2456789".toCharArray();
    private static final SecureRandom RANDOM = new SecureRandom();

    /** generateName-style suffix, done here so names are known before the create returns. */
    public static String memberName(String pool) {
        char[] c = new char[5];
        for (int i = 0; i < c.length; i++) c[i] = ALPHABET[RANDOM.nextInt(ALPHABET.length)];
        String base = pool.length() > 57 ? pool.substring(0, 57) : pool;
        return base + "-" + new String(c);
    }

    /** {@code hashes}: {@link Blueprints#hashes} of {@code t}, which the caller may have kept from an earlier build. */
    public static Sandbox build(
            SandboxWarmPool pool, SandboxTemplate t, Blueprints.Hashes hashes, String name, boolean markSafeToEvict) {
        return member(pool, t, hashes, name, spec(pool, t, hashes, markSafeToEvict));
    }

    /**
     * The spec every member of {@code pool} built from this version of {@code t} gets: a new
     * object, which {@link #member} may share between members that are only serialized.
     */
    public static SandboxSpec spec(
            SandboxWarmPool pool, SandboxTemplate t, Blueprints.Hashes hashes, boolean markSafeToEvict) {
        String poolHash = NameHash.of(pool.getMetadata().getName());
        String tplHash = NameHash.of(t.getMetadata().getName());
        SandboxSpec spec = Blueprints.specFrom(t);
        ObjectMeta ptm = spec.getPodTemplate().getMetadata() == null
                ? new ObjectMeta()
                : spec.getPodTemplate().getMetadata();
        Map<String, String> pl = ptm.getLabels() == null ? new LinkedHashMap<>() : new LinkedHashMap<>(ptm.getLabels());
        pl.put(Keys.WARM_POOL_SANDBOX, poolHash);
        pl.put(Keys.TEMPLATE_REF_HASH, tplHash);
        pl.put(Keys.POD_TEMPLATE_HASH, hashes.podTemplate());
        pl.put(Keys.TEMPLATE_HASH, hashes.blueprint());
        ptm.setLabels(pl);
        if (markSafeToEvict) {
            Map<String, String> pa =
                    ptm.getAnnotations() == null ? new LinkedHashMap<>() : new LinkedHashMap<>(ptm.getAnnotations());
            pa.putIfAbsent(Keys.SAFE_TO_EVICT, "true");
            ptm.setAnnotations(pa);
        }
        spec.getPodTemplate().setMetadata(ptm);
        Blueprints.applySecureDefaults(spec.getPodTemplate().getSpec(), t);
        return spec;
    }

    /** A member named {@code name} with {@code spec} (from {@link #spec}) as its spec, not a copy of it. */
    public static Sandbox member(
            SandboxWarmPool pool, SandboxTemplate t, Blueprints.Hashes hashes, String name, SandboxSpec spec) {
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put(Keys.WARM_POOL_SANDBOX, NameHash.of(pool.getMetadata().getName()));
        labels.put(Keys.TEMPLATE_REF_HASH, NameHash.of(t.getMetadata().getName()));
        labels.put(Keys.LAUNCH_TYPE, "warm");
        labels.put(Keys.POD_TEMPLATE_HASH, hashes.podTemplate());
        labels.put(Keys.TEMPLATE_HASH, hashes.blueprint());
        labels.put(Keys.CREATED_BY, "controller");

        Sandbox sb = new Sandbox();
        sb.getMetadata().setName(name);
        sb.getMetadata().setNamespace(pool.getMetadata().getNamespace());
        sb.getMetadata().setLabels(labels);
        Map<String, String> ann = new LinkedHashMap<>();
        ann.put(Keys.TEMPLATE_REF, t.getMetadata().getName());
        ann.put(Keys.ORIGIN_POOL, pool.getMetadata().getName());
        // Its Pod will have its name: set now, this saves the annotation write after the Pod's creation.
        ann.put(Keys.POD_NAME, name);
        sb.getMetadata().setAnnotations(ann);
        sb.getMetadata().setOwnerReferences(List.of(Ownership.controllerRef(pool)));
        sb.setSpec(spec);
        return sb;
    }

    public static boolean ready(Sandbox sb) {
        return sb.getStatus() != null && Conds.isTrue(sb.getStatus().getConditions(), SandboxConditions.READY);
    }

    /** Members to delete when there are too many: not-Ready first, then newest first. */
    public static List<Sandbox> excess(List<Sandbox> active, int desired) {
        int n = active.size() - desired;
        if (n <= 0) return List.of();
        List<Sandbox> sorted = new ArrayList<>(active);
        sorted.sort(Comparator.comparing((Sandbox s) -> ready(s))
                .thenComparing(s -> created(s), Comparator.reverseOrder()));
        return sorted.subList(0, n);
    }

    /** The creation time, {@link Instant#MAX} when missing or unreadable (adopted last). */
    public static Instant created(Sandbox s) {
        String ts = s.getMetadata().getCreationTimestamp();
        Instant i = ts == null ? null : Expiry.parse(ts);
        return i == null ? Instant.MAX : i;
    }
}
