package io.sandboxd.controller.core;

import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimSpecBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimTemplate;
import io.sandboxd.controller.model.Sandbox;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Pure builder of the PVCs from volumeClaimTemplates (§2.3): `<vct>-<sandbox>`. */
public final class DesiredPvc {
    private DesiredPvc() {}

    public static String name(String vctName, String sandboxName) {
        return vctName + "-" + sandboxName;
    }

    public static List<PersistentVolumeClaim> build(Sandbox sb) {
        List<PersistentVolumeClaim> out = new ArrayList<>();
        List<PersistentVolumeClaimTemplate> vcts = sb.getSpec().getVolumeClaimTemplates();
        if (vcts == null) return out;
        String sbName = sb.getMetadata().getName();
        for (PersistentVolumeClaimTemplate vct : vcts) {
            Map<String, String> labels = new LinkedHashMap<>();
            if (vct.getMetadata() != null && vct.getMetadata().getLabels() != null)
                labels.putAll(vct.getMetadata().getLabels());
            labels.put(Keys.SANDBOX_NAME_HASH, NameHash.of(sbName));
            Map<String, String> ann =
                    vct.getMetadata() == null || vct.getMetadata().getAnnotations() == null
                            ? null
                            : new LinkedHashMap<>(vct.getMetadata().getAnnotations());
            out.add(new PersistentVolumeClaimBuilder()
                    .withNewMetadata()
                    .withName(name(vct.getMetadata().getName(), sbName))
                    .withNamespace(sb.getMetadata().getNamespace())
                    .withLabels(labels)
                    .withAnnotations(ann)
                    .withOwnerReferences(Ownership.controllerRef(sb))
                    .endMetadata()
                    .withSpec(
                            vct.getSpec() == null ? null : new PersistentVolumeClaimSpecBuilder(vct.getSpec()).build())
                    .build());
        }
        return out;
    }
}
