package io.sandboxd.controller.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.crd.generator.annotation.SchemaFrom;
import io.fabric8.crd.generator.annotation.SchemaSwap;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Required;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimTemplate;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/** extensions.agents.x-k8s.io/v1beta1 SandboxClaim: one Sandbox from a warm pool (or cold). */
@Group("extensions.agents.x-k8s.io")
@Version("v1beta1")
@Kind("SandboxClaim")
@Plural("sandboxclaims")
@ShortNames("sandboxclaim")
@AdditionalPrinterColumn(
        name = "Ready",
        type = AdditionalPrinterColumn.Type.STRING,
        jsonPath = ".status.conditions[?(@.type==\"Ready\")].status")
@AdditionalPrinterColumn(
        name = "Sandbox",
        type = AdditionalPrinterColumn.Type.STRING,
        jsonPath = ".status.sandbox.name")
@AdditionalPrinterColumn(
        name = "Reason",
        type = AdditionalPrinterColumn.Type.STRING,
        jsonPath = ".status.conditions[?(@.type==\"Ready\")].reason")
@AdditionalPrinterColumn(
        name = "Age",
        type = AdditionalPrinterColumn.Type.DATE,
        jsonPath = ".metadata.creationTimestamp")
@SchemaSwap(
        originalType = PersistentVolumeClaimTemplate.class,
        fieldName = "metadata",
        targetType = Schemas.ClaimTemplateMetadata.class)
@JsonIgnoreProperties(ignoreUnknown = true)
public class SandboxClaim extends CustomResource<SandboxClaim.Spec, SandboxClaim.Status> implements Namespaced {
    public static final String KIND = "SandboxClaim";

    @Override
    protected Spec initSpec() {
        return new Spec();
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public static class Spec {
        @Required
        private Ref warmPoolRef;

        private Lifecycle lifecycle;
        private PodMetadata additionalPodMetadata;
        private List<EnvVar> env;
        private List<PersistentVolumeClaimTemplate> volumeClaimTemplates;

        public Ref getWarmPoolRef() {
            return warmPoolRef;
        }

        public void setWarmPoolRef(Ref v) {
            warmPoolRef = v;
        }

        public Lifecycle getLifecycle() {
            return lifecycle;
        }

        public void setLifecycle(Lifecycle v) {
            lifecycle = v;
        }

        public PodMetadata getAdditionalPodMetadata() {
            return additionalPodMetadata;
        }

        public void setAdditionalPodMetadata(PodMetadata v) {
            additionalPodMetadata = v;
        }

        public List<EnvVar> getEnv() {
            return env;
        }

        public void setEnv(List<EnvVar> v) {
            env = v;
        }

        public List<PersistentVolumeClaimTemplate> getVolumeClaimTemplates() {
            return volumeClaimTemplates;
        }

        public void setVolumeClaimTemplates(List<PersistentVolumeClaimTemplate> v) {
            volumeClaimTemplates = v;
        }
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public static class Lifecycle {
        private String shutdownTime;

        @Min(0)
        private Integer ttlSecondsAfterFinished;

        @SchemaFrom(type = Schemas.ClaimShutdownPolicy.class)
        @Default("Retain")
        private String shutdownPolicy;

        public String getShutdownTime() {
            return shutdownTime;
        }

        public void setShutdownTime(String v) {
            shutdownTime = v;
        }

        public Integer getTtlSecondsAfterFinished() {
            return ttlSecondsAfterFinished;
        }

        public void setTtlSecondsAfterFinished(Integer v) {
            ttlSecondsAfterFinished = v;
        }

        public String getShutdownPolicy() {
            return shutdownPolicy;
        }

        public void setShutdownPolicy(String v) {
            shutdownPolicy = v;
        }
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public static class PodMetadata {
        private Map<String, String> labels;
        private Map<String, String> annotations;

        public Map<String, String> getLabels() {
            return labels;
        }

        public void setLabels(Map<String, String> v) {
            labels = v;
        }

        public Map<String, String> getAnnotations() {
            return annotations;
        }

        public void setAnnotations(Map<String, String> v) {
            annotations = v;
        }
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public static class EnvVar {
        @Required
        private String name;

        private String value;
        private String containerName;

        public EnvVar() {}

        public EnvVar(String name, String value) {
            this.name = name;
            this.value = value;
        }

        public String getName() {
            return name;
        }

        public void setName(String v) {
            name = v;
        }

        public String getValue() {
            return value;
        }

        public void setValue(String v) {
            value = v;
        }

        public String getContainerName() {
            return containerName;
        }

        public void setContainerName(String v) {
            containerName = v;
        }
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public static class Status {
        private List<Condition> conditions = new ArrayList<>();
        private SandboxRef sandbox;

        public Status() {}

        public Status(Status o) {
            if (o == null) return;
            if (o.conditions != null) o.conditions.forEach(c -> conditions.add(Conds.copy(c)));
            if (o.sandbox != null)
                sandbox = new SandboxRef(
                        o.sandbox.name, o.sandbox.podIPs == null ? null : new ArrayList<>(o.sandbox.podIPs));
        }

        public List<Condition> getConditions() {
            return conditions;
        }

        public void setConditions(List<Condition> v) {
            conditions = v;
        }

        public SandboxRef getSandbox() {
            return sandbox;
        }

        public void setSandbox(SandboxRef v) {
            sandbox = v;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Status s
                    && Conds.sameConditions(conditions, s.conditions)
                    && Objects.equals(sandbox, s.sandbox);
        }

        @Override
        public int hashCode() {
            return Objects.hash(sandbox);
        }
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public static class SandboxRef {
        private String name;
        private List<String> podIPs;

        public SandboxRef() {}

        public SandboxRef(String name, List<String> podIPs) {
            this.name = name;
            this.podIPs = podIPs;
        }

        public String getName() {
            return name;
        }

        public void setName(String v) {
            name = v;
        }

        public List<String> getPodIPs() {
            return podIPs;
        }

        public void setPodIPs(List<String> v) {
            podIPs = v;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof SandboxRef r
                    && Objects.equals(name, r.name)
                    && Objects.equals(
                            podIPs == null || podIPs.isEmpty() ? null : podIPs,
                            r.podIPs == null || r.podIPs.isEmpty() ? null : r.podIPs);
        }

        @Override
        public int hashCode() {
            return Objects.hash(name);
        }
    }
}
