package io.sandboxd.conformance.suite;

/**
 * How binding a check is. {@code CORE} checks come from runtime-contract statements labelled [wire]: a
 * runtime that fails one is not compatible with the upstream SDKs. {@code RECOMMENDED} checks come
 * from [ours] statements: better behaviour that sandboxd implements and recommends. {@code EXTENDED}
 * checks come from [extended] statements (runtime-contract §4): services a runtime may offer.
 */
public enum Level {
    CORE,
    RECOMMENDED,
    EXTENDED;

    public String label() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
