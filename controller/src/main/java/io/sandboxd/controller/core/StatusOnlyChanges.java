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
                && Objects.equals(orEmpty(n.getLabels()), orEmpty(o.getLabels()))
                && Objects.equals(orEmpty(n.getAnnotations()), orEmpty(o.getAnnotations()))
                && Objects.equals(n.getOwnerReferences(), o.getOwnerReferences())
                && Objects.equals(n.getFinalizers(), o.getFinalizers())
                && Objects.equals(n.getDeletionTimestamp(), o.getDeletionTimestamp())
                && Objects.equals(n.getDeletionGracePeriodSeconds(), o.getDeletionGracePeriodSeconds());
    }

    private static Map<String, String> orEmpty(Map<String, String> m) {
        return m == null ? Map.of() : m;
    }
}
