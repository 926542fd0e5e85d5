package io.sandboxd.router.resolve;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SandboxPodsTest {
    @Test
    void routableNeedsLabelReadyAndIp() {
        Pod ok = InformerPodCacheTest.sandboxPod("ns", "p", "sb", "u", true, false);
        assertThat(SandboxPods.isRoutable(ok)).isTrue();
        assertThat(SandboxPods.sandboxName(ok)).isEqualTo("sb");
        assertThat(SandboxPods.sandboxOwner(ok).getUid()).isEqualTo("u");

        assertThat(SandboxPods.isRoutable(InformerPodCacheTest.sandboxPod("ns", "p", "sb", "u", false, false)))
                .isFalse();
        Pod noIp = new PodBuilder(ok).editStatus().withPodIP(null).endStatus().build();
        assertThat(SandboxPods.isRoutable(noIp)).isFalse();
        Pod deleting = new PodBuilder(ok)
                .editMetadata()
                .withDeletionTimestamp("2026-01-01T00:00:00Z")
                .endMetadata()
                .build();
        assertThat(SandboxPods.isRoutable(deleting)).isFalse();
        Pod unlabelled = new PodBuilder(ok)
                .editMetadata()
                .withLabels(java.util.Map.of())
                .endMetadata()
                .build();
        assertThat(SandboxPods.isRoutable(unlabelled)).isFalse();
        // On the host network the "Pod IP" is the node's address (kubelet, node-local services).
        Pod hostNetwork =
                new PodBuilder(ok).editSpec().withHostNetwork(true).endSpec().build();
        assertThat(SandboxPods.isRoutable(hostNetwork)).isFalse();
        assertThat(SandboxPods.isRoutable(new PodBuilder(ok)
                        .editSpec()
                        .withHostNetwork(false)
                        .endSpec()
                        .build()))
                .isTrue();
    }

    static Service sandboxService(String ns, String name, String owner) {
        return new ServiceBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace(ns)
                .addToLabels(SandboxPods.NAME_HASH_LABEL, "0badcafe")
                .addNewOwnerReference()
                .withApiVersion("agents.x-k8s.io/v1alpha1")
                .withKind("Sandbox")
                .withName(owner)
                .withUid("uid-" + owner)
                .withController(true)
                .endOwnerReference()
                .endMetadata()
                .withNewSpec()
                .withClusterIP("None")
                .endSpec()
                .build();
    }

    @Test
    void onlyTheSandboxsOwnHeadlessServiceIsASandboxService() {
        Service ok = sandboxService("ns", "sb", "sb");
        assertThat(SandboxPods.isSandboxService(ok)).isTrue();
        assertThat(SandboxPods.isSandboxService(sandboxService("ns", "sb", "other")))
                .as("owned by another sandbox")
                .isFalse();
        assertThat(SandboxPods.isSandboxService(new ServiceBuilder(ok)
                        .editMetadata()
                        .withLabels(Map.of())
                        .endMetadata()
                        .build()))
                .as("unlabelled")
                .isFalse();
        assertThat(SandboxPods.isSandboxService(new ServiceBuilder(ok)
                        .editMetadata()
                        .withOwnerReferences(List.of())
                        .endMetadata()
                        .build()))
                .as("no owner: e.g. kubernetes.default")
                .isFalse();
        assertThat(SandboxPods.isSandboxService(new ServiceBuilder(ok)
                        .editMetadata()
                        .editFirstOwnerReference()
                        .withController(false)
                        .endOwnerReference()
                        .endMetadata()
                        .build()))
                .as("not the controller")
                .isFalse();
        assertThat(SandboxPods.isSandboxService(new ServiceBuilder(ok)
                        .editMetadata()
                        .editFirstOwnerReference()
                        .withKind("SandboxWarmPool")
                        .endOwnerReference()
                        .endMetadata()
                        .build()))
                .as("other kind")
                .isFalse();
        assertThat(SandboxPods.isSandboxService(new ServiceBuilder(ok)
                        .editMetadata()
                        .editFirstOwnerReference()
                        .withApiVersion("evil.example/v1")
                        .endOwnerReference()
                        .endMetadata()
                        .build()))
                .as("other group")
                .isFalse();
        assertThat(SandboxPods.isSandboxService(new ServiceBuilder(ok)
                        .editSpec()
                        .withType("ExternalName")
                        .withExternalName("kubernetes.default.svc.cluster.local")
                        .endSpec()
                        .build()))
                .as("ExternalName")
                .isFalse();
        assertThat(SandboxPods.isSandboxService(new ServiceBuilder(ok)
                        .editMetadata()
                        .withDeletionTimestamp("2026-01-01T00:00:00Z")
                        .endMetadata()
                        .build()))
                .as("being deleted")
                .isFalse();
        assertThat(SandboxPods.isSandboxService(null)).isFalse();
    }

    @Test
    void ownerMustBeTheControllingSandbox() {
        Pod ok = InformerPodCacheTest.sandboxPod("ns", "pod-1", "sb", "u", true, false);
        Pod notController = new PodBuilder(ok)
                .editMetadata()
                .editFirstOwnerReference()
                .withController(false)
                .endOwnerReference()
                .endMetadata()
                .build();
        assertThat(SandboxPods.sandboxOwner(notController)).isNull();
        assertThat(SandboxPods.sandboxName(notController)).isEqualTo("pod-1");
        Pod otherGroup = new PodBuilder(ok)
                .editMetadata()
                .editFirstOwnerReference()
                .withApiVersion("apps/v1")
                .endOwnerReference()
                .endMetadata()
                .build();
        assertThat(SandboxPods.sandboxOwner(otherGroup)).isNull();
    }

    @Test
    void warmPoolMembership() {
        assertThat(SandboxPods.isUnclaimedWarmPoolMember(
                        InformerPodCacheTest.sandboxPod("ns", "p", "sb", "u", true, true)))
                .isTrue();
        assertThat(SandboxPods.isUnclaimedWarmPoolMember(
                        InformerPodCacheTest.sandboxPod("ns", "p", "sb", "u", true, false)))
                .isFalse();
    }
}
