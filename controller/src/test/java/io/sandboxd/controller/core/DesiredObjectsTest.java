package io.sandboxd.controller.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.ContainerPortBuilder;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimTemplateBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.sandboxd.controller.model.Sandbox;
import io.sandboxd.controller.model.SandboxSpec;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DesiredObjectsTest {
    static Sandbox sandbox(String name) {
        Sandbox sb = new Sandbox();
        sb.getMetadata().setName(name);
        sb.getMetadata().setNamespace("ns");
        sb.getMetadata().setUid("uid-1");
        SandboxSpec spec = new SandboxSpec();
        PodTemplateSpec tpl = new PodTemplateSpec();
        tpl.setSpec(new PodSpecBuilder()
                .withContainers(
                        new ContainerBuilder().withName("c").withImage("i").build())
                .build());
        spec.setPodTemplate(tpl);
        sb.setSpec(spec);
        return sb;
    }

    @Test
    void podDropsReservedKeysAndWritesItsOwnHashAndPropagationLists() {
        Sandbox sb = sandbox("sb");
        ObjectMeta m = new ObjectMeta();
        m.setLabels(
                Map.of("b", "2", "a", "1", Keys.SANDBOX_NAME_HASH, "00000000", "extensions.agents.x-k8s.io/x", "y"));
        m.setAnnotations(Map.of("note", "n", Keys.TRACE_CONTEXT, "t", Keys.POD_NAME, "other"));
        sb.getSpec().getPodTemplate().setMetadata(m);
        sb.getMetadata().setLabels(Map.of(Keys.CREATED_BY, "my-tool"));
        Pod p = DesiredPod.build(sb);
        assertThat(p.getMetadata().getName()).isEqualTo("sb");
        assertThat(DesiredPod.specIsTemplates(sb)).isTrue();
        assertThat(p.getSpec())
                .as("no volume claim templates: the template's spec, shared")
                .isSameAs(sb.getSpec().getPodTemplate().getSpec());
        assertThat(p.getMetadata().getLabels())
                .containsOnly(
                        Map.entry("a", "1"),
                        Map.entry("b", "2"),
                        Map.entry(Keys.SANDBOX_NAME_HASH, NameHash.of("sb")),
                        Map.entry(Keys.CREATED_BY, "unknown"));
        assertThat(p.getMetadata().getAnnotations())
                .containsOnly(
                        Map.entry("note", "n"),
                        Map.entry(Keys.PROPAGATED_LABELS, "a,b"),
                        Map.entry(Keys.PROPAGATED_ANNOTATIONS, "note"));
        assertThat(p.getMetadata().getOwnerReferences()).singleElement().satisfies(o -> {
            assertThat(o.getController()).isTrue();
            assertThat(o.getBlockOwnerDeletion()).isTrue();
            assertThat(o.getKind()).isEqualTo("Sandbox");
            assertThat(o.getUid()).isEqualTo("uid-1");
        });
    }

    @Test
    void vctVolumesReplaceSameNamedTemplateVolumes() {
        Sandbox sb = sandbox("sb");
        sb.getSpec()
                .getPodTemplate()
                .getSpec()
                .setVolumes(List.of(
                        new VolumeBuilder()
                                .withName("data")
                                .withNewEmptyDir()
                                .endEmptyDir()
                                .build(),
                        new VolumeBuilder()
                                .withName("tmp")
                                .withNewEmptyDir()
                                .endEmptyDir()
                                .build()));
        sb.getSpec()
                .setVolumeClaimTemplates(List.of(new PersistentVolumeClaimTemplateBuilder()
                        .withNewMetadata()
                        .withName("data")
                        .endMetadata()
                        .withNewSpec()
                        .endSpec()
                        .build()));
        Pod p = DesiredPod.build(sb);
        assertThat(DesiredPod.specIsTemplates(sb)).isFalse();
        assertThat(p.getSpec().getVolumes()).hasSize(2);
        assertThat(p.getSpec().getVolumes().get(0).getPersistentVolumeClaim().getClaimName())
                .isEqualTo("data-sb");
        assertThat(sb.getSpec().getPodTemplate().getSpec().getVolumes().get(0).getEmptyDir())
                .as("template untouched")
                .isNotNull();
        assertThat(DesiredPvc.build(sb)).singleElement().satisfies(pvc -> {
            assertThat(pvc.getMetadata().getName()).isEqualTo("data-sb");
            assertThat(pvc.getMetadata().getLabels()).containsEntry(Keys.SANDBOX_NAME_HASH, NameHash.of("sb"));
        });
    }

    @Test
    void metadataSyncRemovesKeysNoLongerInTemplateAndScrubsStaleReservedOnes() {
        Sandbox sb = sandbox("sb");
        ObjectMeta m = new ObjectMeta();
        m.setLabels(Map.of("keep", "1"));
        sb.getSpec().getPodTemplate().setMetadata(m);
        Map<String, String> labels = new HashMap<>(Map.of(
                "keep", "0", "gone", "x", Keys.WARM_POOL_SANDBOX, "abc", "agents.x-k8s.io/old", "v", "foreign", "f"));
        Pod pod = new PodBuilder()
                .withNewMetadata()
                .withName("sb")
                .withLabels(labels)
                .withAnnotations(Map.of(Keys.PROPAGATED_LABELS, "agents.x-k8s.io/old,gone,keep"))
                .endMetadata()
                .build();
        DesiredPod.PodMetadata md = DesiredPod.syncedMetadata(sb, pod);
        assertThat(md.labels())
                .containsOnly(
                        Map.entry("keep", "1"),
                        Map.entry("foreign", "f"),
                        Map.entry(Keys.SANDBOX_NAME_HASH, NameHash.of("sb")));
        assertThat(md.annotations())
                .containsEntry(Keys.PROPAGATED_LABELS, "keep")
                .doesNotContainKey(Keys.PROPAGATED_ANNOTATIONS);
        Pod synced = new PodBuilder(pod)
                .editMetadata()
                .withLabels(md.labels())
                .withAnnotations(md.annotations())
                .endMetadata()
                .build();
        assertThat(DesiredPod.syncedMetadata(sb, synced)).as("idempotent").isNull();
    }

    @Test
    void servicePortsAreDedupedSortedNamedAndIncludeNativeSidecars() {
        var spec = new PodSpecBuilder()
                .withContainers(
                        new ContainerBuilder()
                                .withName("a")
                                .withPorts(
                                        new ContainerPortBuilder()
                                                .withContainerPort(9000)
                                                .build(),
                                        new ContainerPortBuilder()
                                                .withContainerPort(8080)
                                                .withName("web")
                                                .build(),
                                        new ContainerPortBuilder()
                                                .withContainerPort(0)
                                                .build(),
                                        new ContainerPortBuilder()
                                                .withContainerPort(53)
                                                .withProtocol("UDP")
                                                .build())
                                .build(),
                        new ContainerBuilder()
                                .withName("b")
                                .withPorts(
                                        new ContainerPortBuilder()
                                                .withContainerPort(8080)
                                                .withName("dup")
                                                .build(),
                                        new ContainerPortBuilder()
                                                .withContainerPort(9001)
                                                .withName("web")
                                                .build())
                                .build())
                .withInitContainers(
                        new ContainerBuilder()
                                .withName("side")
                                .withRestartPolicy("Always")
                                .withPorts(new ContainerPortBuilder()
                                        .withContainerPort(7000)
                                        .build())
                                .build(),
                        new ContainerBuilder()
                                .withName("init")
                                .withPorts(new ContainerPortBuilder()
                                        .withContainerPort(6000)
                                        .build())
                                .build())
                .build();
        List<ServicePort> ports = DesiredService.ports(spec);
        assertThat(ports)
                .extracting(p -> p.getName() + "/" + p.getPort() + "/" + p.getProtocol())
                .containsExactly(
                        "p-53-udp/53/UDP",
                        "p-7000-tcp/7000/TCP",
                        "web/8080/TCP",
                        "p-9000-tcp/9000/TCP",
                        "p-9001-tcp/9001/TCP");
        assertThat(DesiredService.ports(new PodSpecBuilder().build())).isEmpty();
        var svc = DesiredService.build(sandbox("web"));
        assertThat(svc.getSpec().getClusterIP()).isEqualTo("None");
        assertThat(svc.getSpec().getPorts()).isNull();
    }

    @Test
    void specValidatorReportsWhatToChange() {
        assertThat(SpecValidator.validate(sandbox("ok"))).isNull();
        Sandbox longName = sandbox("a".repeat(64));
        assertThat(SpecValidator.validate(longName)).isNull();
        longName.getSpec().setService(true);
        assertThat(SpecValidator.validate(longName))
                .contains("not a valid Service name")
                .contains("64 characters");
        Sandbox digit = sandbox("1abc");
        digit.getSpec().setService(true);
        assertThat(SpecValidator.validate(digit)).contains("DNS-1035");
        Sandbox noContainers = sandbox("x");
        noContainers.getSpec().getPodTemplate().getSpec().setContainers(List.of());
        assertThat(SpecValidator.validate(noContainers)).contains("add at least one container");
        Sandbox dup = sandbox("x");
        var vct = new PersistentVolumeClaimTemplateBuilder()
                .withNewMetadata()
                .withName("d")
                .endMetadata()
                .build();
        dup.getSpec().setVolumeClaimTemplates(List.of(vct, vct));
        assertThat(SpecValidator.validate(dup)).contains("twice");
        Sandbox badTime = sandbox("x");
        badTime.getSpec().setShutdownTime("tomorrow");
        assertThat(SpecValidator.validate(badTime)).contains("RFC 3339");
    }

    @Test
    void aFreshlyBuiltPodNeedsNoMetadataSync() {
        Sandbox bare = sandbox("bare");
        Sandbox labelled = sandbox("labelled");
        ObjectMeta md = new ObjectMeta();
        md.setLabels(Map.of("team", "a"));
        md.setAnnotations(Map.of("note", "x"));
        labelled.getSpec().getPodTemplate().setMetadata(md);
        Sandbox member = PoolSandboxes.build(
                ExtensionBuildersTest.pool(),
                ExtensionBuildersTest.template("tpl"),
                Blueprints.hashes(ExtensionBuildersTest.template("tpl")),
                "pool-abcde",
                true);
        member.getMetadata().setUid("m-uid");
        Sandbox cold = ClaimSandboxes.cold(ExtensionBuildersTest.claim(), ExtensionBuildersTest.template("tpl"));
        cold.getMetadata().setUid("c-uid");
        // A template without Pod metadata: its members carry only reserved labels, none propagated.
        Sandbox plain = PoolSandboxes.build(
                ExtensionBuildersTest.pool(),
                templateWithoutPodMetadata(),
                Blueprints.hashes(templateWithoutPodMetadata()),
                "pool-fghjk",
                true);
        plain.getMetadata().setUid("p-uid");
        for (Sandbox sb : List.of(bare, labelled, member, cold, plain)) {
            assertThat(DesiredPod.syncedMetadata(sb, DesiredPod.build(sb)))
                    .as(sb.getMetadata().getName())
                    .isNull();
        }
    }

    static io.sandboxd.controller.model.SandboxTemplate templateWithoutPodMetadata() {
        io.sandboxd.controller.model.SandboxTemplate t = ExtensionBuildersTest.template("tpl");
        t.getSpec().getPodTemplate().setMetadata(null);
        return t;
    }

    @Test
    void jsonPatchMapDiff() {
        String json = new JsonPatch()
                .map("/metadata/labels", Map.of("a", "1", "b", "2"), Map.of("a", "1", "c/d", "3"))
                .json();
        assertThat(json)
                .contains("{\"op\":\"remove\",\"path\":\"/metadata/labels/b\"}")
                .contains("{\"op\":\"add\",\"path\":\"/metadata/labels/c~1d\",\"value\":\"3\"}")
                .doesNotContain("labels/a");
        assertThat(new JsonPatch().map("/x", null, Map.of()).isEmpty()).isTrue();
        assertThat(new JsonPatch().mapEntry("/x", null, "k", null).isEmpty()).isTrue();
        // fabric8 reads a missing map as empty: the whole map is added, never a key under a missing parent.
        assertThat(new JsonPatch()
                        .map("/metadata/annotations", Map.of(), Map.of("k/x", "v"))
                        .json())
                .isEqualTo("[{\"op\":\"add\",\"path\":\"/metadata/annotations\",\"value\":{\"k/x\":\"v\"}}]");
        assertThat(new JsonPatch()
                        .mapEntry("/metadata/labels", Map.of(), "k", "v")
                        .json())
                .isEqualTo("[{\"op\":\"add\",\"path\":\"/metadata/labels\",\"value\":{\"k\":\"v\"}}]");
    }

    @Test
    void expiryRequeueHasTwoSecondMinimum() {
        var now = java.time.Instant.parse("2026-01-01T00:00:00Z");
        assertThat(Expiry.requeueAfter(now.plusMillis(500), now)).isEqualTo(java.time.Duration.ofSeconds(2));
        assertThat(Expiry.requeueAfter(now.plusSeconds(30), now)).isEqualTo(java.time.Duration.ofSeconds(30));
        assertThat(Expiry.expired(now, now)).isTrue();
        assertThat(Expiry.expired(null, now)).isFalse();
        assertThat(Expiry.parse("2026-01-01T00:00:00+02:00"))
                .isEqualTo(java.time.Instant.parse("2025-12-31T22:00:00Z"));
    }
}
