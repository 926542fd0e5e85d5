package io.sandboxd.daemon.errors;

/**
 * A failure the core reports to a caller. The message is shown to clients as is, so it must
 * never contain a host path outside the sandbox root, a token or request content.
 */
public class SandboxException extends Exception {
    private final ErrorKind kind;

    public SandboxException(ErrorKind kind, String message) {
        super(message, null, false, false);
        this.kind = kind;
    }

    public SandboxException(ErrorKind kind, String message, Throwable cause) {
        super(message, cause, false, false);
        this.kind = kind;
    }

    public ErrorKind kind() {
        return kind;
    }
}
