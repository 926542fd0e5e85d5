package io.sandboxd.router.resolve;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.Service;
import java.util.Map;

/** Pure reading of sandbox Pods and Services (labels and ownerRefs as the upstream controller writes them). */
public final class SandboxPods {
    public static final String NAME_HASH_LABEL = "agents.x-k8s.io/sandbox-name-hash";
    public static final String WARM_POOL_LABEL = "agents.x-k8s.io/warm-pool-sandbox";
    public static final String SANDBOX_GROUP = "agents.x-k8s.io";

    private SandboxPods() {}

    /**
     * A routable pod: labelled as a sandbox pod, PodReady=True, with an IP, not being deleted, and not
     * on the host network (its "Pod IP" would be the node's own address).
     */
    public static boolean isRoutable(Pod p) {
        if (p == null || p.getMetadata() == null || p.getStatus() == null) {
            return false;
        }
        if (p.getSpec() != null && Boolean.TRUE.equals(p.getSpec().getHostNetwork())) {
            return false;
        }
        Map<String, String> labels = p.getMetadata().getLabels();
        if (labels == null || !labels.containsKey(NAME_HASH_LABEL)) {
            return false;
        }
        if (p.getMetadata().getDeletionTimestamp() != null) {
            return false;
        }
        String ip = p.getStatus().getPodIP();
        if (ip == null || ip.isEmpty() || p.getStatus().getConditions() == null) {
            return false;
        }
        for (PodCondition c : p.getStatus().getConditions()) {
            if ("Ready".equals(c.getType())) {
                return "True".equals(c.getStatus());
            }
        }
        return false;
    }

    /** Unclaimed warm-pool members are reachable only by UID, never by name. */
    public static boolean isUnclaimedWarmPoolMember(Pod p) {
        Map<String, String> labels = p.getMetadata().getLabels();
        return labels != null && labels.containsKey(WARM_POOL_LABEL);
    }

    /**
     * A Service the DNS fallback may reach: the headless Service the Sandbox controller creates,
     * labelled as a sandbox's, controlled by the Sandbox of the same name (a Service the controller
     * did not make has no such ownerRef, and the garbage collector removes one whose owner does not
     * exist), not being deleted, and not an ExternalName alias that DNS would send elsewhere.
     */
    public static boolean isSandboxService(Service s) {
        if (s == null || s.getMetadata() == null || s.getMetadata().getDeletionTimestamp() != null) {
            return false;
        }
        Map<String, String> labels = s.getMetadata().getLabels();
        if (labels == null || !labels.containsKey(NAME_HASH_LABEL)) {
            return false;
        }
        if (s.getSpec() == null || "ExternalName".equals(s.getSpec().getType())) {
            return false;
        }
        OwnerReference o = sandboxOwner(s);
        return o != null && s.getMetadata().getName().equals(o.getName());
    }

    /** The controlling Sandbox ownerRef, or null. */
    public static OwnerReference sandboxOwner(HasMetadata p) {
        if (p.getMetadata().getOwnerReferences() == null) {
            return null;
        }
        for (OwnerReference o : p.getMetadata().getOwnerReferences()) {
            String api = o.getApiVersion();
            if ("Sandbox".equals(o.getKind())
                    && api != null
                    && api.startsWith(SANDBOX_GROUP + "/")
                    && Boolean.TRUE.equals(o.getController())) {
                return o;
            }
        }
        return null;
    }

    /** The sandbox name a pod serves: its controlling Sandbox's name, else the pod's own name. */
    public static String sandboxName(Pod p) {
        OwnerReference o = sandboxOwner(p);
        return o != null ? o.getName() : p.getMetadata().getName();
    }
}
