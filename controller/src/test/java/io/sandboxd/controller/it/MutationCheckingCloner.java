package io.sandboxd.controller.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.javaoperatorsdk.operator.api.config.Cloner;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Hands each reconcile the cached primary itself, as the controller does, and remembers its JSON:
 * a primary that looks different when it is reconciled again, or when the test ends, was changed
 * by a reconcile, and with a shared primary that change is the informer cache's.
 */
final class MutationCheckingCloner implements Cloner {
    private final KubernetesSerialization json = new KubernetesSerialization();
    private final Map<HasMetadata, String> seen = new IdentityHashMap<>();
    private final List<String> changed = new ArrayList<>();

    @Override
    public <R extends HasMetadata> R clone(R resource) {
        String now = json.asJson(resource);
        synchronized (this) {
            String before = seen.put(resource, now);
            if (before != null && !before.equals(now)) changed.add(describe(resource, before, now));
        }
        return resource;
    }

    /** Every primary some reconcile changed, with its JSON before and after. */
    synchronized List<String> changedPrimaries() {
        List<String> out = new ArrayList<>(changed);
        for (Map.Entry<HasMetadata, String> e : seen.entrySet()) {
            String now = json.asJson(e.getKey());
            if (!now.equals(e.getValue())) out.add(describe(e.getKey(), e.getValue(), now));
        }
        return out;
    }

    /** Fails the test when {@code changed} (what {@link #changedPrimaries} found) is not empty. */
    static void assertNoneChanged(List<String> changed) {
        assertThat(changed)
                .as("primaries a reconcile changed (they are the informer cache's)")
                .isEmpty();
    }

    private static String describe(HasMetadata r, String before, String after) {
        return r.getKind() + " " + r.getMetadata().getNamespace() + "/"
                + r.getMetadata().getName() + "\n  handed to a reconcile: " + before + "\n  afterwards:            "
                + after;
    }
}
