package io.sandboxd.controller.standin;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Kubernetes label selector strings (equality- and set-based), as the API server matches them. */
public final class LabelSelector {
    private enum Op {
        EXISTS,
        NOT_EXISTS,
        EQ,
        NE,
        IN,
        NOT_IN
    }

    private record Requirement(String key, Op op, Set<String> values) {
        boolean matches(Map<String, String> labels) {
            String v = labels == null ? null : labels.get(key);
            return switch (op) {
                case EXISTS -> v != null;
                case NOT_EXISTS -> v == null;
                case EQ, IN -> v != null && values.contains(v);
                case NE, NOT_IN -> v == null || !values.contains(v);
            };
        }
    }

    private static final LabelSelector EVERYTHING = new LabelSelector(List.of());
    private final List<Requirement> requirements;

    private LabelSelector(List<Requirement> requirements) {
        this.requirements = requirements;
    }

    /** Parses a selector; null or blank selects everything. */
    public static LabelSelector parse(String s) {
        if (s == null || s.isBlank()) return EVERYTHING;
        List<Requirement> out = new ArrayList<>();
        for (String part : splitTopLevel(s)) {
            String p = part.trim();
            if (p.isEmpty()) continue;
            int in = p.indexOf(" notin ");
            if (in > 0) {
                out.add(new Requirement(p.substring(0, in).trim(), Op.NOT_IN, values(p.substring(in + 7))));
                continue;
            }
            in = p.indexOf(" in ");
            if (in > 0) {
                out.add(new Requirement(p.substring(0, in).trim(), Op.IN, values(p.substring(in + 4))));
                continue;
            }
            int ne = p.indexOf("!=");
            if (ne > 0) {
                out.add(new Requirement(
                        p.substring(0, ne).trim(),
                        Op.NE,
                        Set.of(p.substring(ne + 2).trim())));
                continue;
            }
            int eq = p.indexOf('=');
            if (eq > 0) {
                int valueAt = p.startsWith("==", eq) ? eq + 2 : eq + 1;
                out.add(new Requirement(
                        p.substring(0, eq).trim(),
                        Op.EQ,
                        Set.of(p.substring(valueAt).trim())));
                continue;
            }
            if (p.startsWith("!")) out.add(new Requirement(p.substring(1).trim(), Op.NOT_EXISTS, Set.of()));
            else out.add(new Requirement(p, Op.EXISTS, Set.of()));
        }
        return new LabelSelector(List.copyOf(out));
    }

    public boolean matches(Map<String, String> labels) {
        for (Requirement r : requirements) if (!r.matches(labels)) return false;
        return true;
    }

    /** Commas inside "in (a,b)" do not separate requirements. */
    private static List<String> splitTopLevel(String s) {
        List<String> parts = new ArrayList<>();
        int depth = 0;
        int start = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '(') depth++;
            else if (c == ')') depth--;
            else if (c == ',' && depth == 0) {
                parts.add(s.substring(start, i));
                start = i + 1;
            }
        }
        parts.add(s.substring(start));
        return parts;
    }

    private static Set<String> values(String list) {
        String t = list.trim();
        if (!t.startsWith("(") || !t.endsWith(")"))
            throw new IllegalArgumentException("bad set in label selector: " + list);
        Set<String> out = new java.util.HashSet<>();
        for (String v : t.substring(1, t.length() - 1).split(",")) if (!v.isBlank()) out.add(v.trim());
        return Set.copyOf(out);
    }
}
