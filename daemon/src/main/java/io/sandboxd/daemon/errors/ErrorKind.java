package io.sandboxd.daemon.errors;

/**
 * Transport-neutral failure categories raised by the core. Each transport maps them once:
 * REST to a status code and JSON {@code code}, gRPC to a {@code Status.Code}.
 * The names are the REST error codes of runtime-contract §2.2.
 */
public enum ErrorKind {
    INVALID_ARGUMENT(400),
    UNAUTHENTICATED(401),
    PERMISSION_DENIED(403),
    NOT_FOUND(404),
    CONFLICT(409),
    PRECONDITION_FAILED(412),
    FAILED_PRECONDITION(400),
    RESOURCE_EXHAUSTED(429),
    DEADLINE_EXCEEDED(504),
    INSUFFICIENT_STORAGE(507),
    INTERNAL(500),
    UNAVAILABLE(503);

    private final int httpStatus;

    ErrorKind(int httpStatus) {
        this.httpStatus = httpStatus;
    }

    public int httpStatus() {
        return httpStatus;
    }
}
