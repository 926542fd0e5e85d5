package io.sandboxd.router.resolve;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import org.junit.jupiter.api.Test;

class SandboxPodsTest {
  @Test
  void routableNeedsLabelReadyAndIp() {
    Pod ok = InformerPodCacheTest.sandboxPod("ns", "p", "sb", "u", true, false);
    assertThat(SandboxPods.isRoutable(ok)).isTrue();
    assertThat(SandboxPods.sandboxName(ok)).isEqualTo("sb");
    assertThat(SandboxPods.sandboxOwner(ok).getUid()).isEqualTo("u");

    assertThat(SandboxPods.isRoutable(InformerPodCacheTest.sandboxPod("ns", "p", "sb", "u", false, false))).isFalse();
    Pod noIp = new PodBuilder(ok).editStatus().withPodIP(null).endStatus().build();
    assertThat(SandboxPods.isRoutable(noIp)).isFalse();
    Pod deleting = new PodBuilder(ok).editMetadata().withDeletionTimestamp("2026-01-01T00:00:00Z").endMetadata().build();
    assertThat(SandboxPods.isRoutable(deleting)).isFalse();
    Pod unlabelled = new PodBuilder(ok).editMetadata().withLabels(java.util.Map.of()).endMetadata().build();
    assertThat(SandboxPods.isRoutable(unlabelled)).isFalse();
  }

  @Test
  void ownerMustBeTheControllingSandbox() {
    Pod ok = InformerPodCacheTest.sandboxPod("ns", "pod-1", "sb", "u", true, false);
    Pod notController = new PodBuilder(ok).editMetadata().editFirstOwnerReference().withController(false)
        .endOwnerReference().endMetadata().build();
    assertThat(SandboxPods.sandboxOwner(notController)).isNull();
    assertThat(SandboxPods.sandboxName(notController)).isEqualTo("pod-1");
    Pod otherGroup = new PodBuilder(ok).editMetadata().editFirstOwnerReference().withApiVersion("apps/v1")
        .endOwnerReference().endMetadata().build();
    assertThat(SandboxPods.sandboxOwner(otherGroup)).isNull();
  }

  @Test
  void warmPoolMembership() {
    assertThat(SandboxPods.isUnclaimedWarmPoolMember(InformerPodCacheTest.sandboxPod("ns", "p", "sb", "u", true, true))).isTrue();
    assertThat(SandboxPods.isUnclaimedWarmPoolMember(InformerPodCacheTest.sandboxPod("ns", "p", "sb", "u", true, false))).isFalse();
  }
}
