package io.sandboxd.controller.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.crd.generator.annotation.SchemaSwap;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimTemplate;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/** agents.x-k8s.io/v1beta1 Sandbox: one Pod, an optional headless Service and PVCs. */
@Group(Sandbox.GROUP)
@Version(Sandbox.VERSION)
@Kind("Sandbox")
@Plural("sandboxes")
@ShortNames("sandbox")
// Upstream's columns, in upstream's order (CrdGeneration keeps the order of these annotations).
@AdditionalPrinterColumn(
        name = "Ready",
        type = AdditionalPrinterColumn.Type.STRING,
        jsonPath = ".status.conditions[?(@.type==\"Ready\")].status")
@AdditionalPrinterColumn(
        name = "Reason",
        type = AdditionalPrinterColumn.Type.STRING,
        jsonPath = ".status.conditions[?(@.type==\"Ready\")].reason")
@AdditionalPrinterColumn(
        name = "Age",
        type = AdditionalPrinterColumn.Type.DATE,
        jsonPath = ".metadata.creationTimestamp")
// A volume claim template's metadata is its name, labels and annotations, as upstream's.
@SchemaSwap(
        originalType = PersistentVolumeClaimTemplate.class,
        fieldName = "metadata",
        targetType = Schemas.ClaimTemplateMetadata.class)
@JsonIgnoreProperties(ignoreUnknown = true)
public class Sandbox extends CustomResource<SandboxSpec, SandboxStatus> implements Namespaced {
    public static final String GROUP = "agents.x-k8s.io";
    public static final String VERSION = "v1beta1";
    public static final String API_VERSION = GROUP + "/" + VERSION;
    public static final String KIND = "Sandbox";

    @Override
    protected SandboxSpec initSpec() {
        return new SandboxSpec();
    }

    @Override
    protected SandboxStatus initStatus() {
        return null;
    }
}
