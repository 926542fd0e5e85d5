package io.sandboxd.client;

import io.grpc.Metadata;
import io.grpc.Status;

/** A ProcessService call ended with a non-OK status: the status, its description and the trailers. */
public final class GrpcCallException extends SandboxdException {
    private final String method;
    private final String target;
    private final transient Status status;
    private final transient Metadata trailers;

    public GrpcCallException(String method, String target, Status status, Metadata trailers) {
        super(
                method + " at " + target + ": " + status.getCode()
                        + (status.getDescription() == null ? "" : ": " + status.getDescription()),
                status.getCause());
        this.method = method;
        this.target = target;
        this.status = status;
        this.trailers = trailers == null ? new Metadata() : trailers;
    }

    /** The RPC's short name, e.g. {@code Execute}. */
    public String method() {
        return method;
    }

    /** The gRPC target the call went to, {@code host:port}. */
    public String target() {
        return target;
    }

    public Status status() {
        return status;
    }

    public Status.Code code() {
        return status.getCode();
    }

    /** The daemon's message, or null. */
    public String description() {
        return status.getDescription();
    }

    public Metadata trailers() {
        return trailers;
    }
}
