package io.sandboxd.router.resolve;

import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import java.util.Map;

/** Pure reading of sandbox Pods (labels and ownerRefs as the upstream controller writes them). */
public final class SandboxPods {
  public static final String NAME_HASH_LABEL = "agents.x-k8s.io/sandbox-name-hash";
  public static final String WARM_POOL_LABEL = "agents.x-k8s.io/warm-pool-sandbox";
  public static final String SANDBOX_GROUP = "agents.x-k8s.io";

  private SandboxPods() {}

  /** A routable pod: labelled as a sandbox pod, PodReady=True, with an IP, not being deleted. */
  public static boolean isRoutable(Pod p) {
    if (p == null || p.getMetadata() == null || p.getStatus() == null) {
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

  /** The controlling Sandbox ownerRef, or null. */
  public static OwnerReference sandboxOwner(Pod p) {
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
