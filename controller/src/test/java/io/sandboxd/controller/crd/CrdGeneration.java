package io.sandboxd.controller.crd;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.crdv2.generator.CRDGenerator;
import io.fabric8.crdv2.generator.CRDPostProcessor;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceColumnDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionVersion;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionVersionBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.sandboxd.controller.model.Sandbox;
import io.sandboxd.controller.model.SandboxClaim;
import io.sandboxd.controller.model.SandboxTemplate;
import io.sandboxd.controller.model.SandboxWarmPool;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The CRDs in controller/crds/, made by fabric8's CRD generator from the controller's model: the
 * schemas of the Kubernetes types a Sandbox embeds (PodSpec, PersistentVolumeClaimSpec,
 * NetworkPolicy rules, Condition) come from fabric8's Kubernetes model, the rest from the model
 * classes and their annotations (required fields, enums, defaults, the CEL rule, printer columns,
 * the scale subresource). Two things the generator does not do are done here, after it:
 *
 * <ul>
 *   <li>{@code format: date-time} on the RFC 3339 times ({@link #TIMES}), which the model keeps as
 *       strings (the generator has no annotation for a format);
 *   <li>printer columns in the order the annotations give them (upstream's; the generator sorts
 *       them by JSON path);
 *   <li>a {@code v1alpha1} version, served and deprecated, with the same schema as the stored
 *       {@code v1beta1} (conversion {@code None}: objects are the same but for apiVersion), so
 *       clusters and examples that still say v1alpha1 work.
 * </ul>
 */
final class CrdGeneration {
    private CrdGeneration() {}

    static final String STORED = "v1beta1";
    static final String ALSO_SERVED = "v1alpha1";
    static final List<Class<? extends HasMetadata>> KINDS =
            List.of(Sandbox.class, SandboxTemplate.class, SandboxWarmPool.class, SandboxClaim.class);

    /** Properties that hold RFC 3339 times, wherever they are. */
    static final Set<String> TIMES = Set.of("shutdownTime", "lastTransitionTime");

    static final String HEADER =
            "# Generated from the controller's model (io.sandboxd.controller.model) by fabric8's CRD\n"
                    + "# generator: do not edit. Regenerate with\n"
                    + "#   ./mvnw -B -pl controller test -Dtest=CrdGenerationTest -Dsandboxd.crds.write=true\n";

    /** File name (upstream's: group_plural.yaml) to its content. */
    static Map<String, String> generate() {
        Map<String, ByteArrayOutputStream> out = new TreeMap<>();
        new CRDGenerator()
                .customResourceClasses(KINDS)
                .forCRDVersions("v1")
                .withMinQuotes(true)
                .withPostProcessor(new CRDPostProcessor() {
                    @Override
                    public HasMetadata process(HasMetadata crd, String crdSpecVersion) {
                        return complete((CustomResourceDefinition) crd);
                    }
                })
                .withOutput(new CRDGenerator.AbstractCRDOutput<ByteArrayOutputStream>() {
                    @Override
                    protected ByteArrayOutputStream createStreamFor(String outputName) {
                        return out.computeIfAbsent(outputName, n -> new ByteArrayOutputStream());
                    }
                })
                .detailedGenerate();
        Map<String, String> files = new TreeMap<>();
        out.forEach((outputName, bytes) -> {
            String crdName = outputName.substring(0, outputName.lastIndexOf('-'));
            String plural = crdName.substring(0, crdName.indexOf('.'));
            String group = crdName.substring(crdName.indexOf('.') + 1);
            String yaml = bytes.toString(StandardCharsets.UTF_8);
            // The generator's own first line says edits "might get overwritten"; ours says how.
            files.put(group + "_" + plural + ".yaml", HEADER + yaml.substring(yaml.indexOf('\n') + 1));
        });
        return files;
    }

    static CustomResourceDefinition complete(CustomResourceDefinition crd) {
        Class<? extends HasMetadata> kind = KINDS.stream()
                .filter(k -> HasMetadata.getFullResourceName(k)
                        .equals(crd.getMetadata().getName()))
                .findFirst()
                .orElseThrow();
        List<CustomResourceDefinitionVersion> versions = crd.getSpec().getVersions();
        if (versions.size() != 1 || !versions.get(0).getName().equals(STORED)) {
            throw new IllegalStateException(
                    crd.getMetadata().getName() + ": expected only " + STORED + " from the model");
        }
        CustomResourceDefinitionVersion stored = versions.get(0);
        formatTimes(stored.getSchema().getOpenAPIV3Schema());
        List<String> order = new ArrayList<>();
        for (AdditionalPrinterColumn c : kind.getAnnotationsByType(AdditionalPrinterColumn.class)) order.add(c.name());
        if (stored.getAdditionalPrinterColumns() != null) {
            stored.getAdditionalPrinterColumns()
                    .sort(Comparator.comparingInt((CustomResourceColumnDefinition c) -> order.indexOf(c.getName())));
        }
        String id = crd.getSpec().getGroup() + "/%s " + crd.getSpec().getNames().getKind();
        CustomResourceDefinitionVersion alpha = new CustomResourceDefinitionVersionBuilder(stored)
                .withName(ALSO_SERVED)
                .withServed(true)
                .withStorage(false)
                .withDeprecated(true)
                .withDeprecationWarning(String.format(id, ALSO_SERVED) + " is deprecated; use "
                        + String.format(id, STORED) + " instead")
                .build();
        crd.getSpec().setVersions(List.of(stored, alpha));
        return crd;
    }

    private static void formatTimes(JSONSchemaProps schema) {
        if (schema == null) return;
        if (schema.getProperties() != null) {
            schema.getProperties().forEach((name, p) -> {
                if (TIMES.contains(name) && "string".equals(p.getType())) p.setFormat("date-time");
                formatTimes(p);
            });
        }
        formatTimes(schema.getItems() == null ? null : schema.getItems().getSchema());
        formatTimes(
                schema.getAdditionalProperties() == null
                        ? null
                        : schema.getAdditionalProperties().getSchema());
    }
}
