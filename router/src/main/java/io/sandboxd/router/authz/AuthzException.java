package io.sandboxd.router.authz;

/** An authorization refusal with its HTTP status (401 unauthenticated, 403 forbidden). */
public final class AuthzException extends RuntimeException {
    private final int status;

    public AuthzException(int status, String detail) {
        super(detail, null, false, false);
        this.status = status;
    }

    public int status() {
        return status;
    }
}
