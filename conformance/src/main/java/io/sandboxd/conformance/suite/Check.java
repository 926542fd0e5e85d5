package io.sandboxd.conformance.suite;

/** The body of one check: returns normally when the runtime conforms, else throws {@link CheckFailed}. */
@FunctionalInterface
public interface Check {
    void run(CheckContext ctx) throws Exception;
}
