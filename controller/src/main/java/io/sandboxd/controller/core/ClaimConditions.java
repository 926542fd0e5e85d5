package io.sandboxd.controller.core;

import io.fabric8.kubernetes.api.model.Condition;
import io.sandboxd.controller.model.Conds;
import io.sandboxd.controller.model.Sandbox;
import java.time.Instant;
import java.util.List;

/** The claim's Ready and Finished conditions (as upstream agent-sandbox does). */
public final class ClaimConditions {
    private ClaimConditions() {}

    /** Sets Finished (copied from the Sandbox) and Ready. {@code failure} = reason + message or null. */
    public static void apply(
            List<Condition> conds,
            Sandbox sb,
            String failureReason,
            String failureMessage,
            boolean expired,
            Long gen,
            Instant now) {
        Condition finished = sb == null || sb.getStatus() == null
                ? null
                : Conds.find(sb.getStatus().getConditions(), SandboxConditions.FINISHED);
        if (finished == null) {
            Conditions.remove(conds, SandboxConditions.FINISHED);
        } else {
            Conditions.set(
                    conds,
                    Conditions.of(
                            SandboxConditions.FINISHED,
                            finished.getStatus(),
                            finished.getReason(),
                            finished.getMessage(),
                            gen),
                    now);
        }
        Conditions.set(conds, ready(sb, failureReason, failureMessage, expired, gen), now);
    }

    static Condition ready(Sandbox sb, String failureReason, String failureMessage, boolean expired, Long gen) {
        String R = SandboxConditions.READY;
        if (failureReason != null) return Conditions.of(R, Conditions.FALSE, failureReason, failureMessage, gen);
        if (expired)
            return Conditions.of(R, Conditions.FALSE, "ClaimExpired", "Claim expired. Sandbox cleanup initiated.", gen);
        if (sb == null) return Conditions.of(R, Conditions.FALSE, "SandboxMissing", "Sandbox does not exist", gen);
        Condition r = sb.getStatus() == null ? null : Conds.find(sb.getStatus().getConditions(), R);
        if (r != null && SandboxConditions.REASON_EXPIRED.equals(r.getReason())) {
            return Conditions.of(
                    R,
                    Conditions.FALSE,
                    "SandboxExpired",
                    "Underlying Sandbox resource has expired independently of the Claim.",
                    gen);
        }
        if (r != null) return Conditions.of(R, r.getStatus(), r.getReason(), r.getMessage(), gen);
        return Conditions.of(R, Conditions.FALSE, "SandboxNotReady", "Sandbox is not ready", gen);
    }
}
