package io.sandboxd.controller.core;

/** Exact label and annotation keys shared with upstream agent-sandbox (as upstream agent-sandbox does). */
public final class Keys {
    private Keys() {}

    public static final String PREFIX = "agents.x-k8s.io/";
    public static final String EXT_PREFIX = "extensions.agents.x-k8s.io/";

    public static final String SANDBOX_NAME_HASH = PREFIX + "sandbox-name-hash";
    public static final String POD_NAME = PREFIX + "pod-name";
    public static final String PROPAGATED_LABELS = PREFIX + "propagated-labels";
    public static final String PROPAGATED_ANNOTATIONS = PREFIX + "propagated-annotations";
    public static final String ADOPTABLE = PREFIX + "adoptable";
    public static final String WARM_POOL_SANDBOX = PREFIX + "warm-pool-sandbox";
    public static final String TEMPLATE_REF_HASH = PREFIX + "sandbox-template-ref-hash";
    public static final String TEMPLATE_HASH = PREFIX + "sandbox-template-hash";
    public static final String POD_TEMPLATE_HASH = PREFIX + "sandbox-pod-template-hash";
    public static final String LAUNCH_TYPE = PREFIX + "launch-type";
    public static final String CREATED_BY = PREFIX + "created-by";
    public static final String CLAIM_UID = PREFIX + "claim-uid";
    public static final String SANDBOX_NAME = PREFIX + "sandbox-name";
    public static final String TEMPLATE_REF = PREFIX + "sandbox-template-ref";
    public static final String TRACE_CONTEXT = "opentelemetry.io/trace-context";
    public static final String SAFE_TO_EVICT = "cluster-autoscaler.kubernetes.io/safe-to-evict";
    /** Ours: the pool a Sandbox was built by; kept after adoption so the pool hears about it. */
    public static final String ORIGIN_POOL = EXT_PREFIX + "origin-warm-pool";

    public static final String EXT_GROUP = "extensions.agents.x-k8s.io";

    /** Reserved label key (§2.6): the controllers' namespace, never accepted from a tenant. */
    public static boolean reservedLabel(String key) {
        return key.startsWith(PREFIX) || key.startsWith(EXT_PREFIX);
    }

    public static boolean reservedAnnotation(String key) {
        return reservedLabel(key) || TRACE_CONTEXT.equals(key);
    }

    /** created-by is copied to the Pod normalised to a small fixed vocabulary. */
    public static String normaliseCreatedBy(String v) {
        return switch (v) {
            case "go-client", "python-client", "controller" -> v;
            default -> "unknown";
        };
    }
}
