package io.sandboxd.conformance.suite;

/** The runtime did not do what the check's statement requires; the message says what and what came back. */
public final class CheckFailed extends RuntimeException {
    public CheckFailed(String message) {
        super(message, null, false, false);
    }
}
