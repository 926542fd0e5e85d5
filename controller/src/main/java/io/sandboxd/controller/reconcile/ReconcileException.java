package io.sandboxd.controller.reconcile;

/** Thrown after the status has been written so JOSDK retries with backoff. */
public class ReconcileException extends RuntimeException {
    public ReconcileException(String message) {
        super(message);
    }
}
