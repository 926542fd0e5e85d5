package io.sandboxd.controller.core;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import java.util.List;
import java.util.Map;

/** Controller ownerReference helpers and upstream's adoption rule. */
public final class Ownership {
    private Ownership() {}

    public static OwnerReference controllerRef(HasMetadata owner) {
        return new OwnerReferenceBuilder()
                .withApiVersion(owner.getApiVersion())
                .withKind(owner.getKind())
                .withName(owner.getMetadata().getName())
                .withUid(owner.getMetadata().getUid())
                .withController(true)
                .withBlockOwnerDeletion(true)
                .build();
    }

    public static OwnerReference controllerOf(HasMetadata obj) {
        List<OwnerReference> refs = obj.getMetadata().getOwnerReferences();
        if (refs == null) return null;
        for (OwnerReference r : refs) if (Boolean.TRUE.equals(r.getController())) return r;
        return null;
    }

    public static boolean controlledBy(HasMetadata obj, HasMetadata owner) {
        OwnerReference r = controllerOf(obj);
        return r != null
                && owner.getMetadata().getUid() != null
                && owner.getMetadata().getUid().equals(r.getUid());
    }

    public static String groupOf(String apiVersion) {
        if (apiVersion == null) return "";
        int i = apiVersion.indexOf('/');
        return i < 0 ? "" : apiVersion.substring(0, i);
    }

    /** Unowned objects are adopted only when they opt in or already carry this sandbox's hash. */
    public static boolean adoptable(HasMetadata obj, String nameHash) {
        Map<String, String> l = obj.getMetadata().getLabels();
        if (l == null) return false;
        return "true".equals(l.get(Keys.ADOPTABLE)) || nameHash.equals(l.get(Keys.SANDBOX_NAME_HASH));
    }

    public static String describe(OwnerReference r) {
        return r.getKind() + "/" + r.getName() + " (UID: " + r.getUid() + ")";
    }
}
