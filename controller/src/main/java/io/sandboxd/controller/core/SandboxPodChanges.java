package io.sandboxd.controller.core;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import java.util.Objects;

/**
 * Which updates of a Pod can change what its Sandbox's reconcile does or writes. The reconcile
 * reads a Pod's labels and annotations (metadata sync, adoption), its owner references, its
 * deletion, {@code spec.nodeName}, {@code status.phase}, its pod IPs and its Ready and PodScheduled
 * conditions (status, reason, message), and nothing else ({@link SandboxConditions}, {@link
 * DesiredPod#syncedMetadata}).
 *
 * <p>Why: a kubelet updates a Pod's status for more than that: each container's state, restart
 * count and image ID, the Initialized, ContainersReady and PodReadyToStartContainers conditions,
 * hostIP and startTime. Each such update used to run a Sandbox reconcile that found nothing to do.
 */
public final class SandboxPodChanges {
    private SandboxPodChanges() {}

    /** Whether the update from {@code old} to {@code now} may change its Sandbox's reconcile. */
    public static boolean relevant(Pod now, Pod old) {
        ObjectMeta n = now.getMetadata();
        ObjectMeta o = old.getMetadata();
        return !StatusOnlyChanges.sameEntries(n.getLabels(), o.getLabels())
                || !StatusOnlyChanges.sameEntries(n.getAnnotations(), o.getAnnotations())
                || !Objects.equals(n.getOwnerReferences(), o.getOwnerReferences())
                || !Objects.equals(n.getDeletionTimestamp(), o.getDeletionTimestamp())
                || !Objects.equals(nodeName(now), nodeName(old))
                || !Objects.equals(phase(now), phase(old))
                || !SandboxConditions.podIPs(now).equals(SandboxConditions.podIPs(old))
                || !sameAsRead(now, old, SandboxConditions.READY)
                || !sameAsRead(now, old, SandboxConditions.POD_SCHEDULED);
    }

    private static boolean sameAsRead(Pod now, Pod old, String type) {
        PodCondition n = SandboxConditions.podCondition(now, type);
        PodCondition o = SandboxConditions.podCondition(old, type);
        if (n == null || o == null) return n == o;
        return Objects.equals(n.getStatus(), o.getStatus())
                && Objects.equals(n.getReason(), o.getReason())
                && Objects.equals(n.getMessage(), o.getMessage());
    }

    private static String nodeName(Pod p) {
        return p.getSpec() == null ? null : p.getSpec().getNodeName();
    }

    private static String phase(Pod p) {
        return p.getStatus() == null ? null : p.getStatus().getPhase();
    }
}
