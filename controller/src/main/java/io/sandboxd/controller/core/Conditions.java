package io.sandboxd.controller.core;

import io.fabric8.kubernetes.api.model.Condition;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.List;

/** meta.SetStatusCondition semantics: lastTransitionTime moves only when status changes. */
public final class Conditions {
    private Conditions() {}

    public static final String TRUE = "True";
    public static final String FALSE = "False";
    public static final String UNKNOWN = "Unknown";

    public static Condition of(String type, String status, String reason, String message, Long generation) {
        Condition c = new Condition();
        c.setType(type);
        c.setStatus(status);
        c.setReason(reason);
        c.setMessage(message == null ? "" : message);
        c.setObservedGeneration(generation);
        return c;
    }

    public static String timestamp(Instant now) {
        return DateTimeFormatter.ISO_INSTANT.format(now.truncatedTo(ChronoUnit.SECONDS));
    }

    /** Sets c in list (mutating); keeps the old lastTransitionTime when the status is unchanged. */
    public static void set(List<Condition> list, Condition c, Instant now) {
        for (int i = 0; i < list.size(); i++) {
            Condition old = list.get(i);
            if (old.getType().equals(c.getType())) {
                if (old.getStatus().equals(c.getStatus()) && old.getLastTransitionTime() != null) {
                    c.setLastTransitionTime(old.getLastTransitionTime());
                } else {
                    c.setLastTransitionTime(timestamp(now));
                }
                list.set(i, c);
                return;
            }
        }
        c.setLastTransitionTime(timestamp(now));
        list.add(c);
    }

    public static void remove(List<Condition> list, String type) {
        list.removeIf(c -> type.equals(c.getType()));
    }
}
