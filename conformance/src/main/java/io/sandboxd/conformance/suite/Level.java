package io.sandboxd.conformance.suite;

/**
 * How binding a check is. {@code CORE} checks come from runtime-contract statements labelled [wire]: a
 * runtime that fails one is not compatible with the upstream SDKs. {@code RECOMMENDED} checks come
 * from [ours] statements: better behaviour that sandboxd implements and recommends. {@code EXTENDED}
 * checks come from [extended] statements: services beyond upstream's API (runtime-contract §4),
 * which a runtime may offer; one that does should pass them.
 */
public enum Level {
    CORE,
    RECOMMENDED,
    EXTENDED;

    public String label() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
