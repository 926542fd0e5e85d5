package io.sandboxd.daemon.fs;

import io.sandboxd.daemon.errors.SandboxException;

/** A {@link SandboxException} raised while confining or resolving a path, typed by its {@link PathFailure}. */
public final class PathException extends SandboxException {
    private final PathFailure failure;

    PathException(PathFailure failure) {
        this(failure, failure.message());
    }

    /** @param message the client-facing text, for failures whose detail varies */
    PathException(PathFailure failure, String message) {
        super(failure.kind(), message);
        this.failure = failure;
    }

    public PathFailure failure() {
        return failure;
    }
}
