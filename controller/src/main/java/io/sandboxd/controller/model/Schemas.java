package io.sandboxd.controller.model;

import io.fabric8.generator.annotation.Required;
import io.fabric8.kubernetes.api.model.PodSpec;
import java.util.Map;

/**
 * Schema-only types: what fabric8's CRD generator puts into the CRDs (controller/crds/, made by
 * CrdGenerationTest) where a field's Java type says more or less than the API does: the values of
 * string enums, and the metadata of embedded templates, of which upstream's API keeps only labels
 * and annotations (a Pod's or PVC's own schema still comes from fabric8's Kubernetes model). The
 * model's annotations name them; nothing reads or writes them at run time.
 */
public final class Schemas {
    private Schemas() {}

    public enum OperatingMode {
        Running,
        Suspended
    }

    public enum SandboxShutdownPolicy {
        Delete,
        Retain
    }

    public enum ClaimShutdownPolicy {
        Delete,
        DeleteForeground,
        Retain
    }

    public enum NetworkPolicyManagement {
        Managed,
        Unmanaged
    }

    public enum EnvVarsInjectionPolicy {
        Allowed,
        Overrides,
        Disallowed
    }

    public enum VolumeClaimTemplatesPolicy {
        Disallowed,
        Allowed,
        Overrides
    }

    public enum UpdateStrategyType {
        Recreate,
        OnReplenish
    }

    /** podTemplate: upstream's PodMetadata and a required PodSpec. */
    public static final class PodTemplate {
        public PodMetadata metadata;

        @Required
        public PodSpec spec;
    }

    /** The metadata a template may give its Pods. */
    public static final class PodMetadata {
        public Map<String, String> labels;
        public Map<String, String> annotations;
    }

    /** volumeClaimTemplates[].metadata: the claim's name (its volume's name), labels and annotations. */
    public static final class ClaimTemplateMetadata {
        public String name;
        public Map<String, String> labels;
        public Map<String, String> annotations;
    }
}
