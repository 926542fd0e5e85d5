package io.sandboxd.conformance.suite;

/**
 * Preparing the check's fixture through the API failed (e.g. the Execute that creates a symlink).
 * Reported as a failure of the check: the runtime could not even set up what the check needs.
 */
public final class FixtureFailed extends RuntimeException {
    public FixtureFailed(String message) {
        super(message, null, false, false);
    }
}
