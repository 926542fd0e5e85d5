package io.sandboxd.conformance.cli;

import io.sandboxd.conformance.suite.CheckId;
import io.sandboxd.conformance.suite.Level;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/** Which checks run: by level, or exactly those named by --only (ids or prefixes ending in '*'). */
final class Selection {
    private Selection() {}

    static List<CheckId> select(String level, List<String> only) {
        if (only != null && !only.isEmpty()) {
            Set<CheckId> out = new LinkedHashSet<>();
            for (String raw : only) {
                String pattern = raw.trim().toUpperCase(Locale.ROOT);
                if (pattern.isEmpty()) {
                    continue;
                }
                if (pattern.endsWith("*")) {
                    String prefix = pattern.substring(0, pattern.length() - 1);
                    List<CheckId> matched = new ArrayList<>();
                    for (CheckId c : CheckId.values()) {
                        if (c.id().startsWith(prefix)) {
                            matched.add(c);
                        }
                    }
                    if (matched.isEmpty()) {
                        throw new IllegalArgumentException("--only: no check id starts with \"" + prefix + "\"");
                    }
                    out.addAll(matched);
                } else {
                    out.add(CheckId.byId(pattern));
                }
            }
            List<CheckId> ordered = new ArrayList<>();
            for (CheckId c : CheckId.values()) {
                if (out.contains(c)) {
                    ordered.add(c);
                }
            }
            return ordered;
        }
        List<CheckId> out = new ArrayList<>();
        for (CheckId c : CheckId.values()) {
            if (level.equals("all") || c.level() == Level.valueOf(level.toUpperCase(Locale.ROOT))) {
                out.add(c);
            }
        }
        return out;
    }
}
