package io.sandboxd.controller.core;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimTemplate;
import io.sandboxd.controller.model.Sandbox;
import io.sandboxd.controller.model.SandboxClaim;
import io.sandboxd.controller.model.SandboxSpec;
import io.sandboxd.controller.model.SandboxTemplate;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Pure claim logic: cold Sandbox building, warm adoption rewrite, metadata validation (§5). */
public final class ClaimSandboxes {
    private ClaimSandboxes() {}

    /** A failure the claim reports with a specific reason. */
    public static final class ClaimError extends RuntimeException {
        public final String reason;
        public final boolean retry;

        public ClaimError(String reason, String message, boolean retry) {
            super(message);
            this.reason = reason;
            this.retry = retry;
        }
    }

    /** True when the claim must go cold: env and VCTs are baked in when the Pod is created. */
    public static boolean forcesCold(SandboxClaim c) {
        return (c.getSpec().getEnv() != null && !c.getSpec().getEnv().isEmpty())
                || (c.getSpec().getVolumeClaimTemplates() != null
                        && !c.getSpec().getVolumeClaimTemplates().isEmpty());
    }

    private static final Set<String> RESERVED_DOMAINS =
            Set.of("kubernetes.io", "k8s.io", "agents.x-k8s.io", "x-k8s.io");

    static boolean inDomain(String domain, Set<String> domains) {
        for (String d : domains) if (domain.equals(d) || domain.endsWith("." + d)) return true;
        return false;
    }

    /** additionalPodMetadata rules; returns an error message or null. */
    public static String validateMetadata(SandboxClaim c) {
        var md = c.getSpec().getAdditionalPodMetadata();
        if (md == null) return null;
        if (md.getLabels() != null) {
            for (var e : md.getLabels().entrySet()) {
                String k = e.getKey();
                int slash = k.indexOf('/');
                if (slash <= 0)
                    return "label \"" + k + "\" must have a domain prefix (for example sandbox.users.io/" + k + ")";
                String domain = k.substring(0, slash);
                if (inDomain(domain, RESERVED_DOMAINS))
                    return "label \"" + k + "\" uses the restricted domain " + domain;
                if (!SpecValidator.isDns1123Subdomain(domain)) return "label \"" + k + "\" has an invalid domain";
                String v = e.getValue() == null ? "" : e.getValue();
                if (v.length() > 63 || !(v.isEmpty() || v.matches("[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?"))) {
                    return "label \"" + k + "\" has an invalid value";
                }
            }
            for (var e : md.getLabels().entrySet()) {
                if (e.getKey().equalsIgnoreCase("app") && "sandbox-router".equalsIgnoreCase(e.getValue())) {
                    return "label app=sandbox-router is reserved for the sandbox router";
                }
            }
        }
        if (md.getAnnotations() != null) {
            for (String k : md.getAnnotations().keySet()) {
                if (Keys.SAFE_TO_EVICT.equals(k)) continue;
                int slash = k.indexOf('/');
                if (slash > 0 && inDomain(k.substring(0, slash), RESERVED_DOMAINS)) {
                    return "annotation \"" + k + "\" uses a restricted domain";
                }
            }
        }
        return null;
    }

    /** podTemplate metadata for a claimed Sandbox: template + claim keys + additionalPodMetadata. */
    public static ObjectMeta podTemplateMetadata(SandboxClaim c, SandboxTemplate t) {
        ObjectMeta tm = t.getSpec().getPodTemplate() == null
                ? null
                : t.getSpec().getPodTemplate().getMetadata();
        Map<String, String> labels =
                new LinkedHashMap<>(tm == null || tm.getLabels() == null ? Map.of() : tm.getLabels());
        Map<String, String> ann =
                new LinkedHashMap<>(tm == null || tm.getAnnotations() == null ? Map.of() : tm.getAnnotations());
        labels.put(Keys.CLAIM_UID, c.getMetadata().getUid());
        labels.put(Keys.TEMPLATE_REF_HASH, NameHash.of(t.getMetadata().getName()));
        String createdBy = createdBy(c);
        if (createdBy != null) labels.put(Keys.CREATED_BY, createdBy);
        var md = c.getSpec().getAdditionalPodMetadata();
        if (md != null && md.getLabels() != null) {
            for (var e : md.getLabels().entrySet()) {
                String have = labels.get(e.getKey());
                if (have != null && !have.equals(e.getValue())) {
                    throw new ClaimError(
                            "ReconcilerError",
                            "metadata override conflict: label \"" + e.getKey() + "\" is set by the template",
                            true);
                }
                labels.put(e.getKey(), e.getValue());
            }
        }
        if (md != null && md.getAnnotations() != null) {
            for (var e : md.getAnnotations().entrySet()) {
                String have = ann.get(e.getKey());
                if (have != null && !have.equals(e.getValue())) {
                    throw new ClaimError(
                            "ReconcilerError",
                            "metadata override conflict: annotation \"" + e.getKey() + "\" is set by the template",
                            true);
                }
                ann.put(e.getKey(), e.getValue());
            }
        }
        ObjectMeta m = new ObjectMeta();
        m.setLabels(labels);
        m.setAnnotations(ann.isEmpty() ? null : ann);
        return m;
    }

    static String createdBy(SandboxClaim c) {
        return c.getMetadata().getLabels() == null
                ? null
                : c.getMetadata().getLabels().get(Keys.CREATED_BY);
    }

    /** The cold-start Sandbox (§5.5): named after the claim, controlled by it. */
    public static Sandbox cold(SandboxClaim c, SandboxTemplate t) {
        SandboxSpec spec = Blueprints.specFrom(t);
        spec.setVolumeClaimTemplates(mergeVcts(t, c.getSpec().getVolumeClaimTemplates()));
        applyEnv(t, spec, c.getSpec().getEnv());
        spec.getPodTemplate().setMetadata(podTemplateMetadata(c, t));
        Blueprints.applySecureDefaults(spec.getPodTemplate().getSpec(), t);

        Map<String, String> labels = new LinkedHashMap<>();
        labels.put(Keys.CLAIM_UID, c.getMetadata().getUid());
        String createdBy = createdBy(c);
        if (createdBy != null) labels.put(Keys.CREATED_BY, createdBy);
        labels.put(Keys.LAUNCH_TYPE, "cold");
        labels.put(Keys.TEMPLATE_REF_HASH, NameHash.of(t.getMetadata().getName()));
        Sandbox sb = new Sandbox();
        sb.getMetadata().setName(c.getMetadata().getName());
        sb.getMetadata().setNamespace(c.getMetadata().getNamespace());
        sb.getMetadata().setLabels(labels);
        // POD_NAME: its Pod will have its name; set now, this saves the write after the Pod's creation.
        sb.getMetadata()
                .setAnnotations(new LinkedHashMap<>(Map.of(
                        Keys.TEMPLATE_REF,
                        t.getMetadata().getName(),
                        Keys.POD_NAME,
                        c.getMetadata().getName())));
        sb.getMetadata().setOwnerReferences(List.of(Ownership.controllerRef(c)));
        sb.setSpec(spec);
        return sb;
    }

    static List<PersistentVolumeClaimTemplate> mergeVcts(SandboxTemplate t, List<PersistentVolumeClaimTemplate> extra) {
        List<PersistentVolumeClaimTemplate> base = Copies.deepList(t.getSpec().getVolumeClaimTemplates());
        if (extra == null || extra.isEmpty()) return base;
        String policy = t.getSpec().getVolumeClaimTemplatesPolicy();
        if (!"Allowed".equals(policy) && !"Overrides".equals(policy)) {
            throw new ClaimError(
                    "VolumeClaimTemplatesError",
                    "the template's volumeClaimTemplatesPolicy is Disallowed; the claim may not add volumeClaimTemplates",
                    false);
        }
        List<PersistentVolumeClaimTemplate> out = base == null ? new ArrayList<>() : new ArrayList<>(base);
        Set<String> seen = new HashSet<>();
        for (PersistentVolumeClaimTemplate v : extra) {
            String n = v.getMetadata() == null ? null : v.getMetadata().getName();
            if (n == null || n.isEmpty() || !seen.add(n)) {
                throw new ClaimError(
                        "VolumeClaimTemplatesError", "claim volumeClaimTemplates need unique, non-empty names", false);
            }
            int idx = -1;
            for (int i = 0; i < out.size(); i++)
                if (n.equals(out.get(i).getMetadata().getName())) idx = i;
            if (idx >= 0 && "Allowed".equals(policy)) {
                throw new ClaimError(
                        "VolumeClaimTemplatesError",
                        "volumeClaimTemplate \"" + n + "\" is already defined by the template",
                        false);
            }
            if (idx >= 0) out.set(idx, Copies.deep(v));
            else out.add(Copies.deep(v));
        }
        return out;
    }

    static void applyEnv(SandboxTemplate t, SandboxSpec spec, List<SandboxClaim.EnvVar> env) {
        if (env == null || env.isEmpty()) return;
        String policy = t.getSpec().getEnvVarsInjectionPolicy();
        if (!"Allowed".equals(policy) && !"Overrides".equals(policy)) {
            throw new ClaimError(
                    "EnvVarsInjectionRejected",
                    "the template's envVarsInjectionPolicy does not allow env injection",
                    false);
        }
        var ps = spec.getPodTemplate().getSpec();
        for (SandboxClaim.EnvVar e : env) {
            Container target = null;
            if (e.getContainerName() == null || e.getContainerName().isEmpty()) {
                if (ps.getContainers() != null && !ps.getContainers().isEmpty())
                    target = ps.getContainers().get(0);
            } else {
                for (List<Container> l : java.util.Arrays.asList(ps.getContainers(), ps.getInitContainers())) {
                    if (l != null)
                        for (Container c : l) if (e.getContainerName().equals(c.getName())) target = c;
                }
            }
            if (target == null) {
                throw new ClaimError(
                        "ReconcilerError",
                        "container \"" + e.getContainerName() + "\" not found for environment variable \"" + e.getName()
                                + "\"",
                        true);
            }
            if ("Allowed".equals(policy)
                    && target.getEnvFrom() != null
                    && !target.getEnvFrom().isEmpty()) {
                throw new ClaimError(
                        "EnvVarsInjectionRejected",
                        "container \"" + target.getName() + "\" uses envFrom; env injection is rejected",
                        false);
            }
            List<EnvVar> vars = target.getEnv() == null ? new ArrayList<>() : new ArrayList<>(target.getEnv());
            boolean replaced = false;
            for (int i = 0; i < vars.size(); i++) {
                if (e.getName().equals(vars.get(i).getName())) {
                    if ("Allowed".equals(policy)) {
                        throw new ClaimError(
                                "ReconcilerError",
                                "environment variable override is not allowed by the template policy for variable \""
                                        + e.getName() + "\"",
                                true);
                    }
                    vars.set(i, new EnvVar(e.getName(), e.getValue(), null));
                    replaced = true;
                }
            }
            if (!replaced) vars.add(new EnvVar(e.getName(), e.getValue(), null));
            target.setEnv(vars);
        }
    }

    /**
     * What adopting a pool member writes (§5.4 completeAdoption): its metadata with the pool markers
     * off and the claim as sole controller, and its pod template's metadata. Built from the member's
     * own maps, without a copy of the member (a JSON round trip of the whole Sandbox, 2% of the
     * controller's CPU samples in a warm burst); the member itself is left as it was.
     */
    public record Adoption(
            Map<String, String> labels,
            Map<String, String> annotations,
            List<OwnerReference> ownerReferences,
            ObjectMeta podTemplateMetadata) {}

    public static Adoption adoption(Sandbox member, SandboxClaim c, SandboxTemplate t) {
        ObjectMeta m = member.getMetadata();
        Map<String, String> labels = new LinkedHashMap<>(m.getLabels() == null ? Map.of() : m.getLabels());
        labels.remove(Keys.WARM_POOL_SANDBOX);
        labels.remove(Keys.POD_TEMPLATE_HASH);
        labels.remove(Keys.TEMPLATE_HASH);
        labels.put(Keys.LAUNCH_TYPE, "warm");
        labels.put(Keys.CLAIM_UID, c.getMetadata().getUid());
        String createdBy = createdBy(c);
        if (createdBy != null) labels.put(Keys.CREATED_BY, createdBy);
        Map<String, String> ann = new LinkedHashMap<>(m.getAnnotations() == null ? Map.of() : m.getAnnotations());
        ann.put(Keys.POD_NAME, m.getName());
        return new Adoption(labels, ann, List.of(Ownership.controllerRef(c)), podTemplateMetadata(c, t));
    }
}
