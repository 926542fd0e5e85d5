package io.sandboxd.daemon.fs;

import io.sandboxd.daemon.errors.ErrorKind;

/**
 * Why a path could not be confined, resolved or used: one constant per kind of failure, with the
 * client-facing error it becomes (never a host path in the message). Callers that need to tell
 * failures apart (the process cwd, runtime-contract §1.2) switch on these, not on message text.
 */
public enum PathFailure {
    /** A {@code ..} or a symlink that would lead out of the root. */
    ESCAPES(ErrorKind.PERMISSION_DENIED, "path traversal outside sandbox root is forbidden"),
    NOT_FOUND(ErrorKind.NOT_FOUND, "path does not exist within the sandbox"),
    PARENT_NOT_DIRECTORY(ErrorKind.NOT_FOUND, "path does not exist within the sandbox (a parent is not a directory)"),
    ACCESS_DENIED(ErrorKind.PERMISSION_DENIED, "permission denied"),
    READ_ONLY(ErrorKind.PERMISSION_DENIED, "read-only file system"),
    NAME_TOO_LONG(ErrorKind.INVALID_ARGUMENT, "file name too long"),
    TOO_MANY_LINKS(ErrorKind.INVALID_ARGUMENT, "too many levels of symbolic links"),
    NO_SPACE(ErrorKind.INSUFFICIENT_STORAGE, "no space left on the sandbox volume"),
    IS_DIRECTORY(ErrorKind.INVALID_ARGUMENT, "target path is a directory"),
    NOT_EMPTY(ErrorKind.CONFLICT, "directory is not empty; pass recursive=true to remove it"),
    NOT_REGULAR(ErrorKind.INVALID_ARGUMENT, "not a regular file or directory"),
    /** The tree kept changing under the walk; a safe outcome, but the client may retry. */
    CHANGED(ErrorKind.CONFLICT, "path changed repeatedly during resolution"),
    /** The client's path itself is unusable (a NUL byte, too long, a reserved name); the message says how. */
    INVALID(ErrorKind.INVALID_ARGUMENT, "invalid path"),
    /** An errno nothing above covers; the message names it. */
    OTHER(ErrorKind.INTERNAL, "filesystem error");

    private final ErrorKind kind;
    private final String message;

    PathFailure(ErrorKind kind, String message) {
        this.kind = kind;
        this.message = message;
    }

    ErrorKind kind() {
        return kind;
    }

    String message() {
        return message;
    }
}
