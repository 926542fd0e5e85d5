package io.sandboxd.daemon.grpc;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.sandboxd.daemon.errors.ErrorKind;
import io.sandboxd.daemon.errors.SandboxException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/** Core failure kinds → gRPC status codes, in one place. */
final class StatusMapper {
    private StatusMapper() {}

    static Status.Code code(ErrorKind kind) {
        return switch (kind) {
            case INVALID_ARGUMENT -> Status.Code.INVALID_ARGUMENT;
            case UNAUTHENTICATED -> Status.Code.UNAUTHENTICATED;
            case PERMISSION_DENIED -> Status.Code.PERMISSION_DENIED;
            case NOT_FOUND -> Status.Code.NOT_FOUND;
            case CONFLICT -> Status.Code.ALREADY_EXISTS;
            case PRECONDITION_FAILED, FAILED_PRECONDITION -> Status.Code.FAILED_PRECONDITION;
            case RESOURCE_EXHAUSTED, INSUFFICIENT_STORAGE -> Status.Code.RESOURCE_EXHAUSTED;
            case DEADLINE_EXCEEDED -> Status.Code.DEADLINE_EXCEEDED;
            case UNAVAILABLE -> Status.Code.UNAVAILABLE;
            case INTERNAL -> Status.Code.INTERNAL;
        };
    }

    static StatusRuntimeException toStatus(Throwable t) {
        Throwable c = t;
        while ((c instanceof CompletionException || c instanceof ExecutionException) && c.getCause() != null) {
            c = c.getCause();
        }
        if (c instanceof SandboxException se) {
            return Status.fromCode(code(se.kind()))
                    .withDescription(se.getMessage())
                    .asRuntimeException();
        }
        if (c instanceof StatusRuntimeException sre) {
            return sre;
        }
        // Never leak an internal message (it may carry host paths).
        return Status.INTERNAL.withDescription("internal error").asRuntimeException();
    }
}
