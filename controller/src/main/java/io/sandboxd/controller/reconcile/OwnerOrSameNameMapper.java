package io.sandboxd.controller.reconcile;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.SecondaryToPrimaryMapper;
import io.sandboxd.controller.core.Ownership;
import java.util.Set;

/**
 * Maps a child to its controlling owner of the given kind/group; an object without such a
 * controller maps to the owner of the same name, which may adopt it.
 */
final class OwnerOrSameNameMapper<R extends HasMetadata> implements SecondaryToPrimaryMapper<R> {
    private final String group;
    private final String kind;
    private final boolean sameNameFallback;

    OwnerOrSameNameMapper(String group, String kind, boolean sameNameFallback) {
        this.group = group;
        this.kind = kind;
        this.sameNameFallback = sameNameFallback;
    }

    @Override
    public Set<ResourceID> toPrimaryResourceIDs(R r) {
        OwnerReference ctl = Ownership.controllerOf(r);
        String ns = r.getMetadata().getNamespace();
        if (ctl != null) {
            if (kind.equals(ctl.getKind()) && group.equals(Ownership.groupOf(ctl.getApiVersion()))) {
                return Set.of(new ResourceID(ctl.getName(), ns));
            }
            return Set.of();
        }
        return sameNameFallback ? Set.of(new ResourceID(r.getMetadata().getName(), ns)) : Set.of();
    }
}
