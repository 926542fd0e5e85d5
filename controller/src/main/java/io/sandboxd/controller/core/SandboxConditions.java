package io.sandboxd.controller.core;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import java.time.Instant;
import java.util.List;

/** Pure computation of the Sandbox conditions (as upstream agent-sandbox does). */
public final class SandboxConditions {
    private SandboxConditions() {}

    public static final String READY = "Ready";
    public static final String SUSPENDED = "Suspended";
    public static final String POD_SCHEDULED = "PodScheduled";
    public static final String FINISHED = "Finished";

    public static final String REASON_INVALID = "InvalidConfiguration";
    public static final String REASON_EXPIRED = "SandboxExpired";
    public static final String MSG_EXPIRED = "Sandbox has expired";

    /**
     * What one reconcile pass observed. {@code pod} is the looked-up Pod (owned or not);
     * {@code podOwned} says whether this Sandbox controls it.
     */
    public record Observation(
            boolean suspended,
            Pod pod,
            boolean podOwned,
            boolean podLookupFailed,
            String error,
            int ownedPodCount,
            boolean serviceRequired,
            boolean serviceExists,
            String invalidConfiguration) {}

    /** Updates {@code conditions} in place, in upstream's order: Suspended, Finished, PodScheduled, Ready. */
    public static void apply(List<Condition> conditions, Observation o, Long generation, Instant now) {
        Conditions.set(conditions, suspended(o, generation), now);
        Condition finished = finished(o, generation);
        if (finished == null) Conditions.remove(conditions, FINISHED);
        else Conditions.set(conditions, finished, now);
        Condition scheduled = podScheduled(o, generation);
        if (scheduled == null) Conditions.remove(conditions, POD_SCHEDULED);
        else Conditions.set(conditions, scheduled, now);
        Conditions.set(conditions, ready(o, generation), now);
    }

    /** Pass A of expiry: Ready=False/SandboxExpired, PodScheduled removed. */
    public static void markExpired(List<Condition> conditions, Long generation, Instant now) {
        Conditions.set(
                conditions, Conditions.of(READY, Conditions.FALSE, REASON_EXPIRED, MSG_EXPIRED, generation), now);
        Conditions.remove(conditions, POD_SCHEDULED);
    }

    static Condition suspended(Observation o, Long gen) {
        if (!o.suspended()) {
            return Conditions.of(SUSPENDED, Conditions.FALSE, "NotSuspended", "Sandbox is not suspended", gen);
        }
        if (o.pod() == null && o.podLookupFailed()) {
            return Conditions.of(
                    SUSPENDED,
                    Conditions.UNKNOWN,
                    "PodStateUnknown",
                    "Pod state is unknown. Sandbox suspension cannot be confirmed",
                    gen);
        }
        if (o.pod() == null) {
            return Conditions.of(
                    SUSPENDED, Conditions.TRUE, "PodTerminated", "Pod has been terminated. Sandbox is suspended", gen);
        }
        if (!o.podOwned()) {
            return Conditions.of(
                    SUSPENDED,
                    Conditions.FALSE,
                    "PodNotOwned",
                    "Refused to delete pod because it is not owned by this sandbox",
                    gen);
        }
        return Conditions.of(
                SUSPENDED, Conditions.FALSE, "PodTerminating", "Pod is terminating. Sandbox is suspending", gen);
    }

    static Condition finished(Observation o, Long gen) {
        if (o.pod() == null || !o.podOwned() || o.pod().getStatus() == null) return null;
        String phase = o.pod().getStatus().getPhase();
        if ("Succeeded".equals(phase))
            return Conditions.of(FINISHED, Conditions.TRUE, "PodSucceeded", "Pod completed successfully", gen);
        if ("Failed".equals(phase)) return Conditions.of(FINISHED, Conditions.TRUE, "PodFailed", "Pod failed", gen);
        return null;
    }

    static Condition podScheduled(Observation o, Long gen) {
        if (o.pod() == null && o.podLookupFailed()) {
            return Conditions.of(
                    POD_SCHEDULED,
                    Conditions.UNKNOWN,
                    "PodSchedulingUnknown",
                    "Pod state is unknown. Pod scheduling cannot be determined",
                    gen);
        }
        if (o.pod() == null || !o.podOwned()) return null;
        PodCondition pc = podCondition(o.pod(), "PodScheduled");
        if (pc == null) {
            return Conditions.of(
                    POD_SCHEDULED,
                    Conditions.UNKNOWN,
                    "PodSchedulingUnknown",
                    "Pod has not reported a PodScheduled condition yet",
                    gen);
        }
        String reason = pc.getReason();
        if (reason == null || reason.isEmpty())
            reason = "True".equals(pc.getStatus()) ? "PodScheduled" : "PodSchedulingUnknown";
        return Conditions.of(POD_SCHEDULED, pc.getStatus(), reason, pc.getMessage(), gen);
    }

    static Condition ready(Observation o, Long gen) {
        if (o.invalidConfiguration() != null) {
            return Conditions.of(READY, Conditions.FALSE, REASON_INVALID, o.invalidConfiguration(), gen);
        }
        if (o.ownedPodCount() > 1) {
            return Conditions.of(
                    READY,
                    Conditions.FALSE,
                    "MultiplePods",
                    "multiple Pods (" + o.ownedPodCount()
                            + ") are controlled by this Sandbox; refusing to choose or create a Pod",
                    gen);
        }
        if (o.error() != null) {
            return Conditions.of(READY, Conditions.FALSE, "ReconcilerError", "Error seen: " + o.error(), gen);
        }
        Pod pod = o.podOwned() ? o.pod() : null;
        if (o.suspended()) {
            return Conditions.of(
                    READY,
                    Conditions.FALSE,
                    "SandboxSuspended",
                    pod != null ? "Sandbox is suspending" : "Sandbox is suspended",
                    gen);
        }
        String phase =
                pod == null || pod.getStatus() == null ? null : pod.getStatus().getPhase();
        if ("Succeeded".equals(phase))
            return Conditions.of(READY, Conditions.FALSE, "PodSucceeded", "Pod completed successfully", gen);
        if ("Failed".equals(phase)) return Conditions.of(READY, Conditions.FALSE, "PodFailed", "Pod failed", gen);

        boolean podReady = false;
        String msg;
        if (pod == null) {
            msg = "Pod does not exist";
        } else if (!"Running".equals(phase)) {
            msg = "Pod exists with phase: " + (phase == null ? "" : phase);
        } else {
            PodCondition rc = podCondition(pod, "Ready");
            if (rc == null || !"True".equals(rc.getStatus())) {
                msg = "Pod is Running but not Ready";
            } else if (podIPs(pod).isEmpty()) {
                msg = "Pod is Ready but has no podIPs yet";
            } else {
                msg = "Pod is Ready";
                podReady = true;
            }
        }
        boolean ready = podReady;
        if (o.serviceRequired()) {
            msg += o.serviceExists() ? "; Service Exists" : "; Service does not exist";
            ready = ready && o.serviceExists();
        }
        return ready
                ? Conditions.of(READY, Conditions.TRUE, "DependenciesReady", msg, gen)
                : Conditions.of(READY, Conditions.FALSE, "DependenciesNotReady", msg, gen);
    }

    public static PodCondition podCondition(Pod pod, String type) {
        if (pod.getStatus() == null || pod.getStatus().getConditions() == null) return null;
        for (PodCondition c : pod.getStatus().getConditions()) if (type.equals(c.getType())) return c;
        return null;
    }

    public static List<String> podIPs(Pod pod) {
        if (pod.getStatus() == null) return List.of();
        if (pod.getStatus().getPodIPs() != null && !pod.getStatus().getPodIPs().isEmpty()) {
            return pod.getStatus().getPodIPs().stream()
                    .map(p -> p.getIp())
                    .filter(ip -> ip != null && !ip.isEmpty())
                    .toList();
        }
        String ip = pod.getStatus().getPodIP();
        return ip == null || ip.isEmpty() ? List.of() : List.of(ip);
    }
}
