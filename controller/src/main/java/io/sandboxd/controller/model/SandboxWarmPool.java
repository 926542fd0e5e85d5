package io.sandboxd.controller.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.crd.generator.annotation.SchemaFrom;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Required;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.LabelSelector;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.SpecReplicas;
import io.fabric8.kubernetes.model.annotation.StatusReplicas;
import io.fabric8.kubernetes.model.annotation.Version;
import java.util.Objects;

/** extensions.agents.x-k8s.io/v1beta1 SandboxWarmPool: keeps replicas Ready Sandboxes. */
@Group("extensions.agents.x-k8s.io")
@Version("v1beta1")
@Kind("SandboxWarmPool")
@Plural("sandboxwarmpools")
@ShortNames("swp")
@AdditionalPrinterColumn(
        name = "Ready",
        type = AdditionalPrinterColumn.Type.INTEGER,
        jsonPath = ".status.readyReplicas")
@AdditionalPrinterColumn(name = "Desired", type = AdditionalPrinterColumn.Type.INTEGER, jsonPath = ".spec.replicas")
@AdditionalPrinterColumn(
        name = "Age",
        type = AdditionalPrinterColumn.Type.DATE,
        jsonPath = ".metadata.creationTimestamp")
@JsonIgnoreProperties(ignoreUnknown = true)
public class SandboxWarmPool extends CustomResource<SandboxWarmPool.Spec, SandboxWarmPool.Status>
        implements Namespaced {
    public static final String KIND = "SandboxWarmPool";
    public static final String RECREATE = "Recreate";
    public static final String ON_REPLENISH = "OnReplenish";

    @Override
    protected Spec initSpec() {
        return new Spec();
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public static class Spec {
        @SpecReplicas
        @Min(0)
        @Default("1")
        private Integer replicas;

        @Required
        private Ref sandboxTemplateRef;

        private UpdateStrategy updateStrategy;

        public Integer getReplicas() {
            return replicas;
        }

        public void setReplicas(Integer v) {
            replicas = v;
        }

        public Ref getSandboxTemplateRef() {
            return sandboxTemplateRef;
        }

        public void setSandboxTemplateRef(Ref v) {
            sandboxTemplateRef = v;
        }

        public UpdateStrategy getUpdateStrategy() {
            return updateStrategy;
        }

        public void setUpdateStrategy(UpdateStrategy v) {
            updateStrategy = v;
        }

        public int desired() {
            return replicas == null ? 1 : replicas;
        }

        public boolean recreate() {
            return updateStrategy != null && RECREATE.equals(updateStrategy.getType());
        }
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public static class UpdateStrategy {
        @SchemaFrom(type = Schemas.UpdateStrategyType.class)
        @Default("OnReplenish")
        private String type;

        public String getType() {
            return type;
        }

        public void setType(String v) {
            type = v;
        }
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public static class Status {
        @StatusReplicas
        private Integer replicas;

        private Integer readyReplicas;

        @LabelSelector
        private String selector;

        private Long observedGeneration;

        public Integer getReplicas() {
            return replicas;
        }

        public void setReplicas(Integer v) {
            replicas = v;
        }

        public Integer getReadyReplicas() {
            return readyReplicas;
        }

        public void setReadyReplicas(Integer v) {
            readyReplicas = v;
        }

        public String getSelector() {
            return selector;
        }

        public void setSelector(String v) {
            selector = v;
        }

        public Long getObservedGeneration() {
            return observedGeneration;
        }

        public void setObservedGeneration(Long v) {
            observedGeneration = v;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Status s
                    && Objects.equals(replicas, s.replicas)
                    && Objects.equals(readyReplicas, s.readyReplicas)
                    && Objects.equals(selector, s.selector)
                    && Objects.equals(observedGeneration, s.observedGeneration);
        }

        @Override
        public int hashCode() {
            return Objects.hash(replicas, readyReplicas, selector, observedGeneration);
        }
    }
}
