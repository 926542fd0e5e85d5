package io.sandboxd.controller.reconcile;

import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.sandboxd.controller.model.SandboxTemplate;

/** Templates as the API server hands them out: a uid, a resourceVersion, one container. */
final class VersionedTemplates {
    private VersionedTemplates() {}

    static SandboxTemplate template(String uid, String version, String image) {
        SandboxTemplate t = new SandboxTemplate();
        t.getMetadata().setName("tpl-" + uid);
        t.getMetadata().setNamespace("ns");
        t.getMetadata().setUid(uid);
        t.getMetadata().setResourceVersion(version);
        PodTemplateSpec pt = new PodTemplateSpec();
        pt.setSpec(new PodSpecBuilder()
                .addNewContainer()
                .withName("main")
                .withImage(image)
                .endContainer()
                .build());
        t.getSpec().setPodTemplate(pt);
        return t;
    }
}
