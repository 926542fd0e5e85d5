package io.sandboxd.controller.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodIP;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Each field of a Pod the Sandbox reconcile reads makes an update relevant; nothing else does. */
class SandboxPodChangesTest {
    static Pod running() {
        return new PodBuilder()
                .withNewMetadata()
                .withName("sb-1")
                .withNamespace("default")
                .withUid("pod-uid")
                .withResourceVersion("1")
                .withLabels(Map.of(Keys.SANDBOX_NAME_HASH, "abc"))
                .withAnnotations(Map.of("a", "1"))
                .withOwnerReferences(
                        new OwnerReference("agents.x-k8s.io/v1alpha1", true, true, "Sandbox", "sb-1", "sb-uid"))
                .endMetadata()
                .withNewSpec()
                .withNodeName("node-1")
                .endSpec()
                .withNewStatus()
                .withPhase("Running")
                .withPodIP("10.0.0.1")
                .withPodIPs(new PodIP("10.0.0.1"))
                .withHostIP("192.168.0.1")
                .withConditions(
                        condition("PodScheduled", "True", null, null),
                        condition("Initialized", "True", null, null),
                        condition("ContainersReady", "True", null, null),
                        condition("Ready", "True", null, null))
                .withContainerStatuses(new ContainerStatusBuilder()
                        .withName("main")
                        .withReady(true)
                        .withRestartCount(0)
                        .build())
                .endStatus()
                .build();
    }

    static PodCondition condition(String type, String status, String reason, String message) {
        PodCondition c = new PodCondition();
        c.setType(type);
        c.setStatus(status);
        c.setReason(reason);
        c.setMessage(message);
        c.setLastTransitionTime("2026-01-01T00:00:00Z");
        return c;
    }

    static Pod changed(Consumer<Pod> change) {
        Pod p = running();
        change.accept(p);
        return p;
    }

    /** Replaces the condition of {@code type} (or adds it); {@code null} removes it. */
    static void setCondition(Pod p, String type, PodCondition c) {
        List<PodCondition> conds = new ArrayList<>(p.getStatus().getConditions());
        conds.removeIf(x -> x.getType().equals(type));
        if (c != null) conds.add(c);
        p.getStatus().setConditions(conds);
    }

    static Map<String, String> with(Map<String, String> m, String k, String v) {
        Map<String, String> copy = new LinkedHashMap<>(m);
        copy.put(k, v);
        return copy;
    }

    static List<Arguments> relevant() {
        return List.of(
                Arguments.of("a label added", (Consumer<Pod>)
                        p -> p.getMetadata().setLabels(with(p.getMetadata().getLabels(), "team", "a"))),
                Arguments.of("labels gone", (Consumer<Pod>) p -> p.getMetadata().setLabels(null)),
                Arguments.of("an annotation changed", (Consumer<Pod>)
                        p -> p.getMetadata().setAnnotations(with(p.getMetadata().getAnnotations(), "a", "2"))),
                Arguments.of("owner references gone", (Consumer<Pod>)
                        p -> p.getMetadata().setOwnerReferences(null)),
                Arguments.of("being deleted", (Consumer<Pod>)
                        p -> p.getMetadata().setDeletionTimestamp("2026-01-02T00:00:00Z")),
                Arguments.of("unbound", (Consumer<Pod>) p -> p.getSpec().setNodeName(null)),
                Arguments.of("spec gone", (Consumer<Pod>) p -> p.setSpec(null)),
                Arguments.of("phase changed", (Consumer<Pod>) p -> p.getStatus().setPhase("Succeeded")),
                Arguments.of("pod IPs changed", (Consumer<Pod>)
                        p -> p.getStatus().setPodIPs(List.of(new PodIP("10.0.0.1"), new PodIP("fd00::1")))),
                Arguments.of("pod IP gone", (Consumer<Pod>) p -> {
                    p.getStatus().setPodIP(null);
                    p.getStatus().setPodIPs(null);
                }),
                Arguments.of("no longer Ready", (Consumer<Pod>)
                        p -> setCondition(p, "Ready", condition("Ready", "False", "ContainersNotReady", "m"))),
                Arguments.of("Ready's message changed", (Consumer<Pod>)
                        p -> setCondition(p, "Ready", condition("Ready", "True", null, "now with a message"))),
                Arguments.of("Ready gone", (Consumer<Pod>) p -> setCondition(p, "Ready", null)),
                Arguments.of("PodScheduled's reason changed", (Consumer<Pod>)
                        p -> setCondition(p, "PodScheduled", condition("PodScheduled", "True", "Scheduled", null))),
                Arguments.of("status gone", (Consumer<Pod>) p -> p.setStatus(null)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("relevant")
    void aChangeTheReconcileReadsIsRelevantBothWays(String what, Consumer<Pod> change) {
        assertThat(SandboxPodChanges.relevant(changed(change), running())).isTrue();
        assertThat(SandboxPodChanges.relevant(running(), changed(change))).isTrue();
    }

    static List<Arguments> irrelevant() {
        return List.of(
                Arguments.of("nothing but the resourceVersion", (Consumer<Pod>)
                        p -> p.getMetadata().setResourceVersion("2")),
                Arguments.of("a container restarted", (Consumer<Pod>) p -> {
                    ContainerStatus cs = p.getStatus().getContainerStatuses().get(0);
                    cs.setRestartCount(1);
                    cs.setStarted(true);
                }),
                Arguments.of("ContainersReady flipped", (Consumer<Pod>) p -> setCondition(
                        p, "ContainersReady", condition("ContainersReady", "False", "ContainersNotReady", "m"))),
                Arguments.of("PodReadyToStartContainers added", (Consumer<Pod>) p -> setCondition(
                        p, "PodReadyToStartContainers", condition("PodReadyToStartContainers", "True", null, null))),
                Arguments.of("Ready probed again, same status", (Consumer<Pod>) p -> {
                    PodCondition c = condition("Ready", "True", null, null);
                    c.setLastProbeTime("2026-01-01T00:01:00Z");
                    setCondition(p, "Ready", c);
                }),
                Arguments.of("hostIP and startTime", (Consumer<Pod>) p -> {
                    p.getStatus().setHostIP("192.168.0.2");
                    p.getStatus().setStartTime("2026-01-01T00:00:01Z");
                }),
                Arguments.of("the same labels in a new map", (Consumer<Pod>) p -> p.getMetadata()
                        .setLabels(new LinkedHashMap<>(p.getMetadata().getLabels()))));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("irrelevant")
    void aChangeTheReconcileDoesNotReadIsNot(String what, Consumer<Pod> change) {
        assertThat(SandboxPodChanges.relevant(changed(change), running())).isFalse();
        assertThat(SandboxPodChanges.relevant(running(), changed(change))).isFalse();
    }
}
