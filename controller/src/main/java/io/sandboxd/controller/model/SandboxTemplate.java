package io.sandboxd.controller.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.crd.generator.annotation.SchemaFrom;
import io.fabric8.crd.generator.annotation.SchemaSwap;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Required;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimTemplate;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyEgressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyIngressRule;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;
import java.util.List;

/** extensions.agents.x-k8s.io/v1beta1 SandboxTemplate: the blueprint (no status). */
@Group("extensions.agents.x-k8s.io")
@Version("v1beta1")
@Kind("SandboxTemplate")
@Plural("sandboxtemplates")
@ShortNames("sandboxtemplate")
@SchemaSwap(
        originalType = PersistentVolumeClaimTemplate.class,
        fieldName = "metadata",
        targetType = Schemas.ClaimTemplateMetadata.class)
@JsonIgnoreProperties(ignoreUnknown = true)
public class SandboxTemplate extends CustomResource<SandboxTemplate.Spec, Void> implements Namespaced {
    public static final String KIND = "SandboxTemplate";

    @Override
    protected Spec initSpec() {
        return new Spec();
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public static class Spec {
        @Required
        @SchemaFrom(type = Schemas.PodTemplate.class)
        private PodTemplateSpec podTemplate;

        private List<PersistentVolumeClaimTemplate> volumeClaimTemplates;
        private Boolean service;
        private NetworkPolicyRules networkPolicy;

        @SchemaFrom(type = Schemas.NetworkPolicyManagement.class)
        @Default("Managed")
        private String networkPolicyManagement;

        @SchemaFrom(type = Schemas.EnvVarsInjectionPolicy.class)
        @Default("Disallowed")
        private String envVarsInjectionPolicy;

        @SchemaFrom(type = Schemas.VolumeClaimTemplatesPolicy.class)
        @Default("Disallowed")
        private String volumeClaimTemplatesPolicy;

        public PodTemplateSpec getPodTemplate() {
            return podTemplate;
        }

        public void setPodTemplate(PodTemplateSpec v) {
            podTemplate = v;
        }

        public List<PersistentVolumeClaimTemplate> getVolumeClaimTemplates() {
            return volumeClaimTemplates;
        }

        public void setVolumeClaimTemplates(List<PersistentVolumeClaimTemplate> v) {
            volumeClaimTemplates = v;
        }

        public Boolean getService() {
            return service;
        }

        public void setService(Boolean v) {
            service = v;
        }

        public NetworkPolicyRules getNetworkPolicy() {
            return networkPolicy;
        }

        public void setNetworkPolicy(NetworkPolicyRules v) {
            networkPolicy = v;
        }

        public String getNetworkPolicyManagement() {
            return networkPolicyManagement;
        }

        public void setNetworkPolicyManagement(String v) {
            networkPolicyManagement = v;
        }

        public String getEnvVarsInjectionPolicy() {
            return envVarsInjectionPolicy;
        }

        public void setEnvVarsInjectionPolicy(String v) {
            envVarsInjectionPolicy = v;
        }

        public String getVolumeClaimTemplatesPolicy() {
            return volumeClaimTemplatesPolicy;
        }

        public void setVolumeClaimTemplatesPolicy(String v) {
            volumeClaimTemplatesPolicy = v;
        }

        /** Absent or empty means Managed (the CRD default). */
        public boolean unmanaged() {
            return "Unmanaged".equals(networkPolicyManagement);
        }
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public static class NetworkPolicyRules {
        private List<NetworkPolicyIngressRule> ingress;
        private List<NetworkPolicyEgressRule> egress;

        public List<NetworkPolicyIngressRule> getIngress() {
            return ingress;
        }

        public void setIngress(List<NetworkPolicyIngressRule> v) {
            ingress = v;
        }

        public List<NetworkPolicyEgressRule> getEgress() {
            return egress;
        }

        public void setEgress(List<NetworkPolicyEgressRule> v) {
            egress = v;
        }
    }
}
