package io.sandboxd.client;

/**
 * Any failure of a call to sandboxd. Subclasses say what kind: the daemon answered with a gRPC
 * status ({@link GrpcCallException}) or an HTTP error ({@link RestCallException}), or it could not
 * be reached at all ({@link DaemonUnreachableException}). A plain {@code SandboxdException} is a
 * transport failure after the connection was made (reset, timeout, interrupted), and names the
 * address.
 */
public class SandboxdException extends RuntimeException {
    public SandboxdException(String message) {
        super(message);
    }

    public SandboxdException(String message, Throwable cause) {
        super(message, cause);
    }
}
