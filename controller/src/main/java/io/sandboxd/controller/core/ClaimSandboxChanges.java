package io.sandboxd.controller.core;

import io.fabric8.kubernetes.api.model.Condition;
import io.sandboxd.controller.model.Conds;
import io.sandboxd.controller.model.Sandbox;
import java.util.List;
import java.util.Objects;

/**
 * Which updates of a claim's Sandbox can change what the claim's reconcile does or writes. Of its
 * own Sandbox (or one of its name) the reconcile reads the owner references, the deletion, the
 * labels, the pod IPs and the Ready and Finished conditions (status, reason, message: {@link
 * ClaimConditions}); nothing else.
 *
 * <p>Why: each status write of the Sandbox controller set off a claim reconcile. After a warm
 * adoption the Sandbox's status is written again only because its generation moved (the Ready
 * condition's observedGeneration), and that claim pass found nothing to write.
 */
public final class ClaimSandboxChanges {
    private ClaimSandboxChanges() {}

    /** Whether the update from {@code old} to {@code now} may change its claim's reconcile. */
    public static boolean relevant(Sandbox now, Sandbox old) {
        var n = now.getMetadata();
        var o = old.getMetadata();
        return !Objects.equals(n.getOwnerReferences(), o.getOwnerReferences())
                || !Objects.equals(n.getDeletionTimestamp(), o.getDeletionTimestamp())
                || !StatusOnlyChanges.sameEntries(n.getLabels(), o.getLabels())
                || !Objects.equals(podIPs(now), podIPs(old))
                || !sameAsRead(now, old, SandboxConditions.READY)
                || !sameAsRead(now, old, SandboxConditions.FINISHED);
    }

    private static boolean sameAsRead(Sandbox now, Sandbox old, String type) {
        Condition n = condition(now, type);
        Condition o = condition(old, type);
        if (n == null || o == null) return n == o;
        return Objects.equals(n.getStatus(), o.getStatus())
                && Objects.equals(n.getReason(), o.getReason())
                && Objects.equals(n.getMessage(), o.getMessage());
    }

    private static Condition condition(Sandbox sb, String type) {
        return sb.getStatus() == null ? null : Conds.find(sb.getStatus().getConditions(), type);
    }

    private static List<String> podIPs(Sandbox sb) {
        return sb.getStatus() == null ? null : sb.getStatus().getPodIPs();
    }
}
