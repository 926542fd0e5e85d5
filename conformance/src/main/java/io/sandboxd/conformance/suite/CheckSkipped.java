package io.sandboxd.conformance.suite;

/** The check cannot run against this runtime or configuration; the message says why and how to enable it. */
public final class CheckSkipped extends RuntimeException {
    public CheckSkipped(String reason) {
        super(reason, null, false, false);
    }
}
