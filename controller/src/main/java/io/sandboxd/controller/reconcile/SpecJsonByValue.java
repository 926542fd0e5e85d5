package io.sandboxd.controller.reconcile;

import io.sandboxd.controller.core.Copies;
import java.util.Objects;

/**
 * The JSON of a spec, remembered for the last few distinct specs and found again by equality: the
 * Pods of one pool's members all have the template's pod spec, each in its own object (one per
 * watch event), so an identity key would never hit. fabric8's model objects compare field by
 * field, all of them, which costs a fraction of serializing them. A remembered spec is a copy,
 * so a caller that changes its own object later cannot change what is found.
 */
final class SpecJsonByValue<T> {
    /** Distinct specs remembered; the oldest gives way. Templates in use at once, in practice. */
    static final int CAPACITY = 16;

    private record Entry(Object spec, String json) {}

    /** Newest first; replaced whole, so readers need no lock (a lost insert only costs a miss). */
    private volatile Entry[] entries = new Entry[0];

    String json(T spec) {
        Entry[] now = entries;
        for (Entry e : now) {
            if (Objects.equals(e.spec(), spec)) return e.json();
        }
        String json = Copies.json(spec);
        Entry[] next = new Entry[Math.min(CAPACITY, now.length + 1)];
        next[0] = new Entry(Copies.deep(spec), json);
        System.arraycopy(now, 0, next, 1, next.length - 1);
        entries = next;
        return json;
    }
}
