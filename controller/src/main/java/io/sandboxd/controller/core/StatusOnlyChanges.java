package io.sandboxd.controller.core;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import java.util.Map;
import java.util.Objects;

/**
 * Whether an update changed nothing a reconcile reads but the status: the same generation (so
 * the same spec, under a status subresource), labels, annotations, owners, finalizers and
 * deletion. The resourceVersion and managedFields always change and are not compared.
 */
public final class StatusOnlyChanges {
    private StatusOnlyChanges() {}

    public static boolean onlyStatusChanged(HasMetadata now, HasMetadata old) {
        ObjectMeta n = now.getMetadata();
        ObjectMeta o = old.getMetadata();
        return Objects.equals(n.getGeneration(), o.getGeneration())
                && sameEntries(n.getLabels(), o.getLabels())
                && sameEntries(n.getAnnotations(), o.getAnnotations())
                && Objects.equals(n.getOwnerReferences(), o.getOwnerReferences())
                && Objects.equals(n.getFinalizers(), o.getFinalizers())
                && Objects.equals(n.getDeletionTimestamp(), o.getDeletionTimestamp())
                && Objects.equals(n.getDeletionGracePeriodSeconds(), o.getDeletionGracePeriodSeconds());
    }

    /** Labels or annotations compared as the API server treats them: absent is empty. */
    static boolean sameEntries(Map<String, String> a, Map<String, String> b) {
        return Objects.equals(a == null ? Map.of() : a, b == null ? Map.of() : b);
    }
}
