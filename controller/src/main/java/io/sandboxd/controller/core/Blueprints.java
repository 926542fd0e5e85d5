package io.sandboxd.controller.core;

import io.fabric8.kubernetes.api.model.PersistentVolumeClaimTemplate;
import io.fabric8.kubernetes.api.model.PodDNSConfigBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.sandboxd.controller.model.Sandbox;
import io.sandboxd.controller.model.SandboxSpec;
import io.sandboxd.controller.model.SandboxTemplate;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/** Template → Sandbox blueprint: copying, secure defaults, hashing and staleness (§3, §4.3). */
public final class Blueprints {
    private Blueprints() {}

    /** Deep copy of the template blueprint (podTemplate, volumeClaimTemplates, service). */
    public static SandboxSpec specFrom(SandboxTemplate t) {
        SandboxSpec s = new SandboxSpec();
        s.setPodTemplate(Copies.deep(t.getSpec().getPodTemplate()));
        s.setVolumeClaimTemplates(Copies.deepList(t.getSpec().getVolumeClaimTemplates()));
        s.setService(t.getSpec().getService());
        if (s.getPodTemplate() == null) s.setPodTemplate(new io.fabric8.kubernetes.api.model.PodTemplateSpec());
        if (s.getPodTemplate().getSpec() == null) s.getPodTemplate().setSpec(new PodSpec());
        return s;
    }

    /**
     * Secure defaults for Sandboxes built from a template: no service-account token unless asked
     * for; with the default NetworkPolicy (which blocks cluster DNS) public resolvers instead.
     */
    public static void applySecureDefaults(PodSpec spec, SandboxTemplate t) {
        if (spec.getAutomountServiceAccountToken() == null) spec.setAutomountServiceAccountToken(false);
        boolean defaultPolicy = !t.getSpec().unmanaged() && t.getSpec().getNetworkPolicy() == null;
        if (defaultPolicy && (spec.getDnsPolicy() == null || spec.getDnsPolicy().isEmpty())) {
            spec.setDnsPolicy("None");
            spec.setDnsConfig(new PodDNSConfigBuilder()
                    .withNameservers("8.8.8.8", "1.1.1.1")
                    .build());
        }
    }

    /** The staleness key: NameHash of the blueprint's canonical JSON. */
    public static String blueprintHash(SandboxTemplate t) {
        Map<String, Object> bp = new LinkedHashMap<>();
        bp.put("podTemplate", t.getSpec().getPodTemplate());
        bp.put("volumeClaimTemplates", t.getSpec().getVolumeClaimTemplates());
        bp.put("service", t.getSpec().getService());
        return NameHash.of(Copies.json(bp));
    }

    public static String podTemplateHash(SandboxTemplate t) {
        return NameHash.of(Copies.json(t.getSpec().getPodTemplate()));
    }

    /** Both hashes a pool member is labelled with. */
    public record Hashes(String blueprint, String podTemplate) {}

    public static Hashes hashes(SandboxTemplate t) {
        return new Hashes(blueprintHash(t), podTemplateHash(t));
    }

    /** Stale when built from another template, or from a different pod spec / VCTs / service. */
    public static boolean stale(Sandbox sb, SandboxTemplate t) {
        Map<String, String> l = sb.getMetadata().getLabels() == null
                ? Map.of()
                : sb.getMetadata().getLabels();
        if (!NameHash.of(t.getMetadata().getName()).equals(l.get(Keys.TEMPLATE_REF_HASH))) return true;
        if (blueprintHash(t).equals(l.get(Keys.TEMPLATE_HASH))) return false;
        PodSpec want = specFrom(t).getPodTemplate().getSpec();
        applySecureDefaults(want, t);
        PodSpec have = sb.getSpec().getPodTemplate() == null
                ? null
                : sb.getSpec().getPodTemplate().getSpec();
        if (!Objects.equals(want, have)) return true;
        List<PersistentVolumeClaimTemplate> a = t.getSpec().getVolumeClaimTemplates() == null
                ? List.of()
                : t.getSpec().getVolumeClaimTemplates();
        List<PersistentVolumeClaimTemplate> b = sb.getSpec().getVolumeClaimTemplates() == null
                ? List.of()
                : sb.getSpec().getVolumeClaimTemplates();
        if (a.size() != b.size()) return true;
        for (int i = 0; i < a.size(); i++) {
            if (!Objects.equals(
                            a.get(i).getMetadata().getName(),
                            b.get(i).getMetadata().getName())
                    || !Objects.equals(a.get(i).getSpec(), b.get(i).getSpec())) {
                return true;
            }
        }
        return !Objects.equals(t.getSpec().getService(), sb.getSpec().getService());
    }
}
