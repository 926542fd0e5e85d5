package io.sandboxd.controller.model;

import io.fabric8.kubernetes.api.model.Condition;
import java.util.List;
import java.util.Objects;

/** Small helpers for metav1.Condition values (kept in the model package; no I/O). */
public final class Conds {
    private Conds() {}

    public static Condition copy(Condition c) {
        Condition n = new Condition();
        n.setType(c.getType());
        n.setStatus(c.getStatus());
        n.setReason(c.getReason());
        n.setMessage(c.getMessage());
        n.setObservedGeneration(c.getObservedGeneration());
        n.setLastTransitionTime(c.getLastTransitionTime());
        return n;
    }

    public static boolean same(Condition a, Condition b) {
        return Objects.equals(a.getType(), b.getType())
                && Objects.equals(a.getStatus(), b.getStatus())
                && Objects.equals(nz(a.getReason()), nz(b.getReason()))
                && Objects.equals(nz(a.getMessage()), nz(b.getMessage()))
                && Objects.equals(a.getObservedGeneration(), b.getObservedGeneration())
                && Objects.equals(a.getLastTransitionTime(), b.getLastTransitionTime());
    }

    public static boolean sameConditions(List<Condition> a, List<Condition> b) {
        int na = a == null ? 0 : a.size();
        int nb = b == null ? 0 : b.size();
        if (na != nb) return false;
        for (int i = 0; i < na; i++) if (!same(a.get(i), b.get(i))) return false;
        return true;
    }

    public static Condition find(List<Condition> list, String type) {
        if (list == null) return null;
        for (Condition c : list) if (type.equals(c.getType())) return c;
        return null;
    }

    public static boolean isTrue(List<Condition> list, String type) {
        Condition c = find(list, type);
        return c != null && "True".equals(c.getStatus());
    }

    private static String nz(String s) {
        return s == null ? "" : s;
    }
}
