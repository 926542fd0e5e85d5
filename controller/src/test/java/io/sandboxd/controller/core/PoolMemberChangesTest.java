package io.sandboxd.controller.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.sandboxd.controller.model.Sandbox;
import io.sandboxd.controller.model.SandboxStatus;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Each field the pool's pass reads makes an update relevant; nothing else does. */
class PoolMemberChangesTest {
    static Sandbox member() {
        Sandbox sb = WarmMembersTest.member("pool-abcde", "2026-01-01T00:00:00Z");
        sb.getMetadata().setGeneration(1L);
        return sb;
    }

    /** A copy of a member with one change: the filter compares two objects from the cache. */
    static Sandbox changed(Consumer<Sandbox> change) {
        Sandbox sb = member();
        change.accept(sb);
        return sb;
    }

    static void annotate(Sandbox sb, String key, String value) {
        Map<String, String> a = new LinkedHashMap<>(sb.getMetadata().getAnnotations());
        if (value == null) a.remove(key);
        else a.put(key, value);
        sb.getMetadata().setAnnotations(a);
    }

    static void ready(Sandbox sb, String status) {
        SandboxStatus st = new SandboxStatus(sb.getStatus());
        List<Condition> conds = new ArrayList<>();
        conds.add(Conditions.of(SandboxConditions.READY, status, "R", "m", 1L));
        st.setConditions(conds);
        sb.setStatus(st);
    }

    static List<Arguments> relevant() {
        return List.of(
                Arguments.of("spec changed (generation)", (Consumer<Sandbox>)
                        sb -> sb.getMetadata().setGeneration(2L)),
                Arguments.of("being deleted", (Consumer<Sandbox>)
                        sb -> sb.getMetadata().setDeletionTimestamp("2026-01-02T00:00:00Z")),
                Arguments.of("pool label removed (adopted)", (Consumer<Sandbox>)
                        sb -> WarmMembersTest.label(sb, Keys.WARM_POOL_SANDBOX, null)),
                Arguments.of("launch-type label changed", (Consumer<Sandbox>)
                        sb -> WarmMembersTest.label(sb, Keys.LAUNCH_TYPE, "cold")),
                Arguments.of("template hash label changed", (Consumer<Sandbox>)
                        sb -> WarmMembersTest.label(sb, Keys.TEMPLATE_HASH, "other")),
                Arguments.of("labels gone", (Consumer<Sandbox>)
                        sb -> sb.getMetadata().setLabels(null)),
                Arguments.of("controller changed", (Consumer<Sandbox>) sb -> sb.getMetadata()
                        .setOwnerReferences(List.of(new OwnerReference(
                                "extensions.agents.x-k8s.io/v1beta1", true, true, "SandboxClaim", "c", "c-uid")))),
                Arguments.of("owner references gone", (Consumer<Sandbox>)
                        sb -> sb.getMetadata().setOwnerReferences(null)),
                Arguments.of(
                        "origin pool changed", (Consumer<Sandbox>) sb -> annotate(sb, Keys.ORIGIN_POOL, "other-pool")),
                Arguments.of("origin pool removed", (Consumer<Sandbox>) sb -> annotate(sb, Keys.ORIGIN_POOL, null)),
                Arguments.of("no longer Ready", (Consumer<Sandbox>) sb -> ready(sb, Conditions.FALSE)),
                Arguments.of("status gone", (Consumer<Sandbox>) sb -> sb.setStatus(null)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("relevant")
    void aChangeThePassReadsIsRelevantBothWays(String what, Consumer<Sandbox> change) {
        assertThat(PoolMemberChanges.relevant(changed(change), member())).isTrue();
        assertThat(PoolMemberChanges.relevant(member(), changed(change))).isTrue();
    }

    static List<Arguments> irrelevant() {
        return List.of(
                Arguments.of("nothing but the resourceVersion", (Consumer<Sandbox>)
                        sb -> sb.getMetadata().setResourceVersion("2")),
                Arguments.of("podIPs and node written, still Ready", (Consumer<Sandbox>) sb -> {
                    SandboxStatus st = new SandboxStatus(sb.getStatus());
                    st.setPodIPs(List.of("10.0.0.1"));
                    st.setNodeName("node-1");
                    sb.setStatus(st);
                }),
                Arguments.of(
                        "Ready condition rewritten, still True", (Consumer<Sandbox>) sb -> ready(sb, Conditions.TRUE)),
                Arguments.of("another annotation (pod-name)", (Consumer<Sandbox>)
                        sb -> annotate(sb, Keys.POD_NAME, "other")),
                Arguments.of("the same labels in a new map", (Consumer<Sandbox>) sb -> sb.getMetadata()
                        .setLabels(new LinkedHashMap<>(sb.getMetadata().getLabels()))));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("irrelevant")
    void aChangeThePassDoesNotReadIsNot(String what, Consumer<Sandbox> change) {
        assertThat(PoolMemberChanges.relevant(changed(change), member())).isFalse();
        assertThat(PoolMemberChanges.relevant(member(), changed(change))).isFalse();
    }

    @org.junit.jupiter.api.Test
    void aNotReadyMemberWhoseStatusIsFirstWrittenIsNot() {
        // The Sandbox controller's first status of a new member: Ready=False, where there was none.
        Sandbox created = member();
        created.setStatus(null);
        Sandbox pending = member();
        ready(pending, Conditions.FALSE);
        assertThat(PoolMemberChanges.relevant(pending, created)).isFalse();
    }
}
