package io.sandboxd.controller.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.sandboxd.controller.model.Sandbox;
import io.sandboxd.controller.model.SandboxStatus;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Each field of its Sandbox the claim's reconcile reads makes an update relevant; nothing else does. */
class ClaimSandboxChangesTest {
    /** An adopted, Ready Sandbox with its pod IP, as the claim's informer holds it. */
    static Sandbox adopted() {
        Sandbox sb = PoolMemberChangesTest.member();
        sb.getMetadata()
                .setOwnerReferences(List.of(new OwnerReference(
                        "extensions.agents.x-k8s.io/v1beta1", true, true, "SandboxClaim", "c", "c-uid")));
        SandboxStatus st = new SandboxStatus(sb.getStatus());
        st.setPodIPs(List.of("10.0.0.1"));
        st.setNodeName("node-1");
        sb.setStatus(st);
        condition(sb, SandboxConditions.READY, Conditions.TRUE, "DependenciesReady", "Pod is Ready", 1L);
        return sb;
    }

    static void condition(Sandbox sb, String type, String status, String reason, String message, Long gen) {
        SandboxStatus st = new SandboxStatus(sb.getStatus());
        List<Condition> conds = new ArrayList<>(st.getConditions() == null ? List.of() : st.getConditions());
        conds.removeIf(c -> c.getType().equals(type));
        if (status != null) conds.add(Conditions.of(type, status, reason, message, gen));
        st.setConditions(conds);
        sb.setStatus(st);
    }

    static Sandbox changed(Consumer<Sandbox> change) {
        Sandbox sb = adopted();
        change.accept(sb);
        return sb;
    }

    static List<Arguments> relevant() {
        return List.of(
                Arguments.of("owner references gone", (Consumer<Sandbox>)
                        sb -> sb.getMetadata().setOwnerReferences(null)),
                Arguments.of("being deleted", (Consumer<Sandbox>)
                        sb -> sb.getMetadata().setDeletionTimestamp("2026-01-02T00:00:00Z")),
                Arguments.of("a label changed", (Consumer<Sandbox>)
                        sb -> WarmMembersTest.label(sb, Keys.LAUNCH_TYPE, "cold")),
                Arguments.of("pod IPs changed", (Consumer<Sandbox>)
                        sb -> sb.getStatus().setPodIPs(List.of("10.0.0.2"))),
                Arguments.of(
                        "pod IPs gone", (Consumer<Sandbox>) sb -> sb.getStatus().setPodIPs(null)),
                Arguments.of("no longer Ready", (Consumer<Sandbox>) sb -> condition(
                        sb, SandboxConditions.READY, Conditions.FALSE, "DependenciesNotReady", "Pod is Ready", 1L)),
                Arguments.of("Ready's reason changed (expired)", (Consumer<Sandbox>) sb -> condition(
                        sb,
                        SandboxConditions.READY,
                        Conditions.TRUE,
                        SandboxConditions.REASON_EXPIRED,
                        "Pod is Ready",
                        1L)),
                Arguments.of("Ready's message changed", (Consumer<Sandbox>) sb -> condition(
                        sb,
                        SandboxConditions.READY,
                        Conditions.TRUE,
                        "DependenciesReady",
                        "Pod is Ready; Service Exists",
                        1L)),
                Arguments.of("Ready gone", (Consumer<Sandbox>)
                        sb -> condition(sb, SandboxConditions.READY, null, null, null, null)),
                Arguments.of("Finished", (Consumer<Sandbox>) sb -> condition(
                        sb,
                        SandboxConditions.FINISHED,
                        Conditions.TRUE,
                        "PodSucceeded",
                        "Pod completed successfully",
                        1L)),
                Arguments.of("status gone", (Consumer<Sandbox>) sb -> sb.setStatus(null)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("relevant")
    void aChangeTheClaimReadsIsRelevantBothWays(String what, Consumer<Sandbox> change) {
        assertThat(ClaimSandboxChanges.relevant(changed(change), adopted())).isTrue();
        assertThat(ClaimSandboxChanges.relevant(adopted(), changed(change))).isTrue();
    }

    static List<Arguments> irrelevant() {
        return List.of(
                Arguments.of("nothing but the resourceVersion", (Consumer<Sandbox>)
                        sb -> sb.getMetadata().setResourceVersion("2")),
                Arguments.of("spec changed (generation), Ready written for it", (Consumer<Sandbox>) sb -> {
                    sb.getMetadata().setGeneration(2L);
                    condition(sb, SandboxConditions.READY, Conditions.TRUE, "DependenciesReady", "Pod is Ready", 2L);
                }),
                Arguments.of("PodScheduled written", (Consumer<Sandbox>) sb ->
                        condition(sb, SandboxConditions.POD_SCHEDULED, Conditions.TRUE, "PodScheduled", null, 1L)),
                Arguments.of("node name changed", (Consumer<Sandbox>)
                        sb -> sb.getStatus().setNodeName("node-2")),
                Arguments.of("an annotation (pod-name)", (Consumer<Sandbox>)
                        sb -> PoolMemberChangesTest.annotate(sb, Keys.POD_NAME, "other")),
                Arguments.of("the same labels in a new map", (Consumer<Sandbox>) sb -> sb.getMetadata()
                        .setLabels(new LinkedHashMap<>(sb.getMetadata().getLabels()))));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("irrelevant")
    void aChangeTheClaimDoesNotReadIsNot(String what, Consumer<Sandbox> change) {
        assertThat(ClaimSandboxChanges.relevant(changed(change), adopted())).isFalse();
        assertThat(ClaimSandboxChanges.relevant(adopted(), changed(change))).isFalse();
    }
}
