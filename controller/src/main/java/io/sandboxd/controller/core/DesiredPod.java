package io.sandboxd.controller.core;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimTemplate;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.sandboxd.controller.model.Sandbox;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/** Pure builder of a Sandbox's Pod and of the metadata it must carry (as upstream agent-sandbox does). */
public final class DesiredPod {
    private DesiredPod() {}

    /** The Pod to create for a Running sandbox. */
    public static Pod build(Sandbox sb) {
        String name = sb.getMetadata().getName();
        Map<String, String> tplLabels = templateLabels(sb);
        Map<String, String> tplAnnotations = templateAnnotations(sb);

        Map<String, String> labels = new LinkedHashMap<>(tplLabels);
        labels.put(Keys.SANDBOX_NAME_HASH, NameHash.of(name));
        labels.putAll(extensionLabels(sb));
        String createdBy = createdBy(sb);
        if (createdBy != null) labels.put(Keys.CREATED_BY, createdBy);

        Map<String, String> annotations = new LinkedHashMap<>(tplAnnotations);
        if (!tplLabels.isEmpty()) annotations.put(Keys.PROPAGATED_LABELS, joinSorted(tplLabels.keySet()));
        if (!tplAnnotations.isEmpty())
            annotations.put(Keys.PROPAGATED_ANNOTATIONS, joinSorted(tplAnnotations.keySet()));

        ObjectMeta meta = new ObjectMeta();
        meta.setName(name);
        meta.setNamespace(sb.getMetadata().getNamespace());
        meta.setLabels(labels);
        meta.setAnnotations(annotations.isEmpty() ? null : annotations);
        meta.setOwnerReferences(new ArrayList<>(List.of(Ownership.controllerRef(sb))));
        // Setters, not PodBuilder: withSpec would deep-copy the spec once more.
        Pod pod = new Pod();
        pod.setMetadata(meta);
        pod.setSpec(spec(sb));
        return pod;
    }

    /**
     * The template spec itself when the Sandbox has no volume claim templates (the Pod is only
     * serialized, never changed: a deep copy was half of this builder's CPU samples in a warm
     * burst, JFR, issue 23); else a deep copy with one volume per VCT (replacing a same-named
     * volume).
     */
    static PodSpec spec(Sandbox sb) {
        PodSpec src = sb.getSpec().getPodTemplate().getSpec();
        if (specIsTemplates(sb)) return src;
        PodSpec spec = new PodSpecBuilder(src).build();
        List<PersistentVolumeClaimTemplate> vcts = sb.getSpec().getVolumeClaimTemplates();
        List<Volume> volumes = spec.getVolumes() == null ? new ArrayList<>() : new ArrayList<>(spec.getVolumes());
        for (PersistentVolumeClaimTemplate vct : vcts) {
            String vname = vct.getMetadata().getName();
            Volume v = new VolumeBuilder()
                    .withName(vname)
                    .withNewPersistentVolumeClaim()
                    .withClaimName(DesiredPvc.name(vname, sb.getMetadata().getName()))
                    .endPersistentVolumeClaim()
                    .build();
            boolean replaced = false;
            for (int i = 0; i < volumes.size(); i++) {
                if (vname.equals(volumes.get(i).getName())) {
                    volumes.set(i, v);
                    replaced = true;
                }
            }
            if (!replaced) volumes.add(v);
        }
        spec.setVolumes(volumes);
        return spec;
    }

    /** True when {@link #build}'s Pod has the Sandbox's pod template spec as it is: no volume claim templates. */
    public static boolean specIsTemplates(Sandbox sb) {
        List<PersistentVolumeClaimTemplate> vcts = sb.getSpec().getVolumeClaimTemplates();
        return vcts == null || vcts.isEmpty();
    }

    /** Non-reserved podTemplate labels: a tenant never gets to set a controller key. */
    public static Map<String, String> templateLabels(Sandbox sb) {
        var meta = sb.getSpec().getPodTemplate() == null
                ? null
                : sb.getSpec().getPodTemplate().getMetadata();
        Map<String, String> out = new LinkedHashMap<>();
        if (meta != null && meta.getLabels() != null) {
            meta.getLabels().forEach((k, v) -> {
                if (!Keys.reservedLabel(k)) out.put(k, v);
            });
        }
        return out;
    }

    public static Map<String, String> templateAnnotations(Sandbox sb) {
        var meta = sb.getSpec().getPodTemplate() == null
                ? null
                : sb.getSpec().getPodTemplate().getMetadata();
        Map<String, String> out = new LinkedHashMap<>();
        if (meta != null && meta.getAnnotations() != null) {
            meta.getAnnotations().forEach((k, v) -> {
                if (!Keys.reservedAnnotation(k)) out.put(k, v);
            });
        }
        return out;
    }

    /** warm-pool-sandbox / template-ref-hash reach the Pod only from the Sandbox's own labels. */
    public static Map<String, String> extensionLabels(Sandbox sb) {
        Map<String, String> out = new LinkedHashMap<>();
        Map<String, String> l = sb.getMetadata().getLabels();
        if (l == null) return out;
        OwnerReference ctl = Ownership.controllerOf(sb);
        if (ctl == null) return out;
        String group = Ownership.groupOf(ctl.getApiVersion());
        if (Keys.EXT_GROUP.equals(group)
                && "SandboxWarmPool".equals(ctl.getKind())
                && l.containsKey(Keys.WARM_POOL_SANDBOX)) {
            out.put(Keys.WARM_POOL_SANDBOX, l.get(Keys.WARM_POOL_SANDBOX));
        }
        if (Keys.EXT_GROUP.equals(group) && l.containsKey(Keys.TEMPLATE_REF_HASH)) {
            out.put(Keys.TEMPLATE_REF_HASH, l.get(Keys.TEMPLATE_REF_HASH));
        }
        return out;
    }

    static String createdBy(Sandbox sb) {
        Map<String, String> l = sb.getMetadata().getLabels();
        if (l == null || !l.containsKey(Keys.CREATED_BY)) return null;
        return Keys.normaliseCreatedBy(l.get(Keys.CREATED_BY));
    }

    static String joinSorted(java.util.Collection<String> keys) {
        return String.join(",", new TreeSet<>(keys));
    }

    /**
     * The labels and annotations an existing Pod must end with (§2.5). Returns null when the
     * Pod already matches, so the caller sends no patch.
     */
    public static PodMetadata syncedMetadata(Sandbox sb, Pod pod) {
        Map<String, String> labels = new LinkedHashMap<>(nn(pod.getMetadata().getLabels()));
        Map<String, String> annotations =
                new LinkedHashMap<>(nn(pod.getMetadata().getAnnotations()));
        Map<String, String> tplLabels = templateLabels(sb);
        Map<String, String> tplAnnotations = templateAnnotations(sb);

        labels.put(Keys.SANDBOX_NAME_HASH, NameHash.of(sb.getMetadata().getName()));
        labels.putAll(tplLabels);
        annotations.putAll(tplAnnotations);

        for (String k : split(annotations.get(Keys.PROPAGATED_LABELS))) {
            if (Keys.SANDBOX_NAME_HASH.equals(k)) continue;
            if (!tplLabels.containsKey(k)) labels.remove(k);
        }
        for (String k : split(annotations.get(Keys.PROPAGATED_ANNOTATIONS))) {
            if (Keys.PROPAGATED_LABELS.equals(k) || Keys.PROPAGATED_ANNOTATIONS.equals(k)) continue;
            if (!tplAnnotations.containsKey(k)) annotations.remove(k);
        }

        Map<String, String> ext = extensionLabels(sb);
        for (String k : List.of(Keys.WARM_POOL_SANDBOX, Keys.TEMPLATE_REF_HASH)) {
            if (ext.containsKey(k)) labels.put(k, ext.get(k));
            else labels.remove(k);
        }
        String createdBy = createdBy(sb);
        if (createdBy != null) labels.put(Keys.CREATED_BY, createdBy);
        else labels.remove(Keys.CREATED_BY);

        // As build() writes them: only when something was propagated. (Writing "" here made every
        // Pod built from a template without Pod labels take one metadata patch right after its
        // creation: 1 write per new warm-pool member and per cold claim.)
        putOrRemove(annotations, Keys.PROPAGATED_LABELS, joinSorted(tplLabels.keySet()));
        putOrRemove(annotations, Keys.PROPAGATED_ANNOTATIONS, joinSorted(tplAnnotations.keySet()));
        if (labels.equals(nn(pod.getMetadata().getLabels()))
                && annotations.equals(nn(pod.getMetadata().getAnnotations()))) {
            return null;
        }
        return new PodMetadata(labels, annotations);
    }

    public record PodMetadata(Map<String, String> labels, Map<String, String> annotations) {}

    private static void putOrRemove(Map<String, String> m, String key, String value) {
        if (value.isEmpty()) m.remove(key);
        else m.put(key, value);
    }

    private static Map<String, String> nn(Map<String, String> m) {
        return m == null ? Collections.emptyMap() : m;
    }

    private static List<String> split(String s) {
        if (s == null || s.isEmpty()) return List.of();
        return List.of(s.split(","));
    }
}
