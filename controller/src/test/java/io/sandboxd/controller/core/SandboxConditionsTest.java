package io.sandboxd.controller.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The cases of upstream agent-sandbox's TestComputeConditions. */
class SandboxConditionsTest {
    static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    static Pod pod(String phase, Boolean ready, String... ips) {
        PodBuilder b = new PodBuilder().withNewMetadata().withName("p").endMetadata();
        if (phase != null || ready != null) {
            var st = b.withNewStatus().withPhase(phase);
            if (ready != null)
                st.addNewCondition()
                        .withType("Ready")
                        .withStatus(ready ? "True" : "False")
                        .endCondition();
            for (String ip : ips) st.addNewPodIP().withIp(ip).endPodIP();
            st.endStatus();
        }
        return b.build();
    }

    static SandboxConditions.Observation obs(boolean suspended, Pod pod, boolean owned) {
        return new SandboxConditions.Observation(
                suspended, pod, owned, false, null, owned && pod != null ? 1 : 0, false, false, null);
    }

    static List<Condition> run(SandboxConditions.Observation o) {
        List<Condition> l = new ArrayList<>();
        SandboxConditions.apply(l, o, 3L, T0);
        return l;
    }

    static Condition c(List<Condition> l, String type) {
        return l.stream().filter(x -> x.getType().equals(type)).findFirst().orElse(null);
    }

    @Test
    void provisioningWithoutPod() {
        var l = run(obs(false, null, false));
        assertThat(l).extracting(Condition::getType).containsExactly("Suspended", "Ready");
        assertThat(c(l, "Ready").getReason()).isEqualTo("DependenciesNotReady");
        assertThat(c(l, "Ready").getMessage()).isEqualTo("Pod does not exist");
        assertThat(c(l, "Ready").getObservedGeneration()).isEqualTo(3L);
        assertThat(c(l, "Suspended").getReason()).isEqualTo("NotSuspended");
    }

    @Test
    void podPendingRunningNotReadyReadyWithoutIpAndReady() {
        assertThat(c(run(obs(false, pod("Pending", null), true)), "Ready").getMessage())
                .isEqualTo("Pod exists with phase: Pending");
        assertThat(c(run(obs(false, pod("Running", false), true)), "Ready").getMessage())
                .isEqualTo("Pod is Running but not Ready");
        assertThat(c(run(obs(false, pod("Running", true), true)), "Ready").getMessage())
                .isEqualTo("Pod is Ready but has no podIPs yet");
        Condition ready = c(run(obs(false, pod("Running", true, "10.0.0.1"), true)), "Ready");
        assertThat(ready.getStatus()).isEqualTo("True");
        assertThat(ready.getReason()).isEqualTo("DependenciesReady");
        assertThat(ready.getMessage()).isEqualTo("Pod is Ready");
    }

    @Test
    void serviceRequiredAppendsServiceState() {
        var o = new SandboxConditions.Observation(
                false, pod("Running", true, "10.0.0.1"), true, false, null, 1, true, false, null);
        Condition r = c(run(o), "Ready");
        assertThat(r.getStatus()).isEqualTo("False");
        assertThat(r.getMessage()).isEqualTo("Pod is Ready; Service does not exist");
        o = new SandboxConditions.Observation(
                false, pod("Running", true, "10.0.0.1"), true, false, null, 1, true, true, null);
        assertThat(c(run(o), "Ready").getMessage()).isEqualTo("Pod is Ready; Service Exists");
    }

    @Test
    void suspendedStates() {
        assertThat(c(run(obs(true, pod("Running", true), true)), "Suspended").getReason())
                .isEqualTo("PodTerminating");
        assertThat(c(run(obs(true, pod("Running", true), true)), "Ready").getMessage())
                .isEqualTo("Sandbox is suspending");
        assertThat(c(run(obs(true, pod("Running", true), false)), "Suspended").getReason())
                .isEqualTo("PodNotOwned");
        var gone = run(obs(true, null, false));
        assertThat(c(gone, "Suspended").getStatus()).isEqualTo("True");
        assertThat(c(gone, "Suspended").getReason()).isEqualTo("PodTerminated");
        assertThat(c(gone, "Ready").getReason()).isEqualTo("SandboxSuspended");
        assertThat(c(gone, "Ready").getMessage()).isEqualTo("Sandbox is suspended");
        var unknown = run(new SandboxConditions.Observation(true, null, false, true, null, 0, false, false, null));
        assertThat(c(unknown, "Suspended").getStatus()).isEqualTo("Unknown");
        assertThat(c(unknown, "PodScheduled").getReason()).isEqualTo("PodSchedulingUnknown");
    }

    @Test
    void terminalPodsDriveFinishedOnlyWhenOwned() {
        var ok = run(obs(false, pod("Succeeded", null), true));
        assertThat(c(ok, "Finished").getReason()).isEqualTo("PodSucceeded");
        assertThat(c(ok, "Ready").getReason()).isEqualTo("PodSucceeded");
        var failed = run(obs(false, pod("Failed", null), true));
        assertThat(c(failed, "Finished").getMessage()).isEqualTo("Pod failed");
        assertThat(c(failed, "Ready").getReason()).isEqualTo("PodFailed");
        assertThat(c(run(obs(false, pod("Failed", null), false)), "Finished")).isNull();
    }

    @Test
    void errorsMultiplePodsAndInvalidConfigurationTakePrecedence() {
        var err = run(new SandboxConditions.Observation(
                false, pod("Running", true, "1.1.1.1"), true, false, "boom", 1, false, false, null));
        assertThat(c(err, "Ready").getReason()).isEqualTo("ReconcilerError");
        assertThat(c(err, "Ready").getMessage()).isEqualTo("Error seen: boom");
        var multi = run(new SandboxConditions.Observation(
                false, pod("Running", true), true, false, null, 3, false, false, null));
        assertThat(c(multi, "Ready").getReason()).isEqualTo("MultiplePods");
        assertThat(c(multi, "Ready").getMessage())
                .isEqualTo("multiple Pods (3) are controlled by this Sandbox; refusing to choose or create a Pod");
        var invalid =
                run(new SandboxConditions.Observation(false, null, false, false, "boom", 0, false, false, "fix it"));
        assertThat(c(invalid, "Ready").getReason()).isEqualTo("InvalidConfiguration");
        assertThat(c(invalid, "Ready").getMessage()).isEqualTo("fix it");
    }

    @Test
    void podScheduledPassThroughAndFallbacks() {
        Pod unschedulable = new PodBuilder()
                .withNewMetadata()
                .withName("p")
                .endMetadata()
                .withNewStatus()
                .withPhase("Pending")
                .addNewCondition()
                .withType("PodScheduled")
                .withStatus("False")
                .withReason("Unschedulable")
                .withMessage("0/3 nodes")
                .endCondition()
                .endStatus()
                .build();
        Condition ps = c(run(obs(false, unschedulable, true)), "PodScheduled");
        assertThat(ps.getReason()).isEqualTo("Unschedulable");
        assertThat(ps.getMessage()).isEqualTo("0/3 nodes");
        Pod emptyReason = new PodBuilder()
                .withNewMetadata()
                .withName("p")
                .endMetadata()
                .withNewStatus()
                .withPhase("Running")
                .addNewCondition()
                .withType("PodScheduled")
                .withStatus("True")
                .endCondition()
                .endStatus()
                .build();
        assertThat(c(run(obs(false, emptyReason, true)), "PodScheduled").getReason())
                .isEqualTo("PodScheduled");
        assertThat(c(run(obs(false, pod("Pending", null), true)), "PodScheduled")
                        .getMessage())
                .isEqualTo("Pod has not reported a PodScheduled condition yet");
        assertThat(c(run(obs(false, pod("Pending", null), false)), "PodScheduled"))
                .isNull();
    }

    @Test
    void lastTransitionTimeMovesOnlyOnStatusChange() {
        List<Condition> l = new ArrayList<>();
        SandboxConditions.apply(l, obs(false, pod("Pending", null), true), 1L, T0);
        String t0 = c(l, "Ready").getLastTransitionTime();
        SandboxConditions.apply(l, obs(false, pod("Running", false), true), 2L, T0.plusSeconds(10));
        assertThat(c(l, "Ready").getLastTransitionTime()).isEqualTo(t0);
        assertThat(c(l, "Ready").getObservedGeneration()).isEqualTo(2L);
        SandboxConditions.apply(l, obs(false, pod("Running", true, "1.2.3.4"), true), 2L, T0.plusSeconds(20));
        assertThat(c(l, "Ready").getLastTransitionTime()).isEqualTo("2026-01-01T00:00:20Z");
    }

    @Test
    void markExpiredRemovesPodScheduled() {
        var l = run(obs(false, pod("Running", true, "1.1.1.1"), true));
        assertThat(c(l, "PodScheduled")).isNotNull();
        SandboxConditions.markExpired(l, 3L, T0);
        assertThat(c(l, "PodScheduled")).isNull();
        assertThat(c(l, "Ready").getReason()).isEqualTo("SandboxExpired");
        assertThat(c(l, "Ready").getMessage()).isEqualTo("Sandbox has expired");
    }
}
