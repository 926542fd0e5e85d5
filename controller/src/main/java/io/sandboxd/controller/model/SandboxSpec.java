package io.sandboxd.controller.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.crd.generator.annotation.SchemaFrom;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimTemplate;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import java.util.List;

/** SandboxBlueprint + Lifecycle, inlined as upstream does. Absent values mean the CRD defaults. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
@ValidationRule(
        value =
                "has(self.volumeClaimTemplates) == has(oldSelf.volumeClaimTemplates) && (!has(self.volumeClaimTemplates)"
                        + " || self.volumeClaimTemplates == oldSelf.volumeClaimTemplates)",
        message = "volumeClaimTemplates is immutable")
public class SandboxSpec {
    public static final String RUNNING = "Running";
    public static final String SUSPENDED = "Suspended";
    public static final String POLICY_DELETE = "Delete";
    public static final String POLICY_RETAIN = "Retain";

    @Required
    @SchemaFrom(type = Schemas.PodTemplate.class)
    private PodTemplateSpec podTemplate;

    private List<PersistentVolumeClaimTemplate> volumeClaimTemplates;
    private Boolean service;

    @SchemaFrom(type = Schemas.OperatingMode.class)
    @Default("Running")
    private String operatingMode;

    private String shutdownTime;

    @SchemaFrom(type = Schemas.SandboxShutdownPolicy.class)
    @Default("Retain")
    private String shutdownPolicy;

    public PodTemplateSpec getPodTemplate() {
        return podTemplate;
    }

    public void setPodTemplate(PodTemplateSpec podTemplate) {
        this.podTemplate = podTemplate;
    }

    public List<PersistentVolumeClaimTemplate> getVolumeClaimTemplates() {
        return volumeClaimTemplates;
    }

    public void setVolumeClaimTemplates(List<PersistentVolumeClaimTemplate> v) {
        this.volumeClaimTemplates = v;
    }

    public Boolean getService() {
        return service;
    }

    public void setService(Boolean service) {
        this.service = service;
    }

    public String getOperatingMode() {
        return operatingMode;
    }

    public void setOperatingMode(String operatingMode) {
        this.operatingMode = operatingMode;
    }

    public String getShutdownTime() {
        return shutdownTime;
    }

    public void setShutdownTime(String shutdownTime) {
        this.shutdownTime = shutdownTime;
    }

    public String getShutdownPolicy() {
        return shutdownPolicy;
    }

    public void setShutdownPolicy(String shutdownPolicy) {
        this.shutdownPolicy = shutdownPolicy;
    }

    /** Absent operatingMode is the CRD default, Running. */
    public boolean suspended() {
        return SUSPENDED.equals(operatingMode);
    }
}
