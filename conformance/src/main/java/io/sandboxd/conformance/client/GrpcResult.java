package io.sandboxd.conformance.client;

import io.grpc.Metadata;
import io.grpc.Status;

/** The outcome of one unary call: the response (null on error), the status and the trailers. */
public record GrpcResult<T>(T value, Status status, Metadata trailers) {

    public boolean ok() {
        return status.isOk();
    }

    public Status.Code code() {
        return status.getCode();
    }

    public String describe() {
        String d = status.getDescription();
        return status.getCode() + (d == null ? "" : " \"" + d + "\"");
    }
}
