package io.sandboxd.client.cli;

import io.sandboxd.client.DaemonUnreachableException;
import io.sandboxd.client.GrpcCallException;
import io.sandboxd.client.RestCallException;
import io.sandboxd.client.SandboxdException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.util.Locale;

/** Turns a failure into the one line a user reads: what failed and why, never a class name. */
final class CliErrors {
    private CliErrors() {}

    /** The text after {@code sandboxd-cli: VERB: }. */
    static String describe(Throwable t) {
        if (t instanceof RestCallException e) {
            String phrase =
                    switch (e.errorCode()) {
                        case "NOT_FOUND" -> "not found";
                        case "UNAUTHENTICATED" ->
                            "unauthenticated: missing or wrong token (use --token-file or SANDBOXD_TOKEN)";
                        default -> e.errorPhrase() + (e.errorMessage() == null ? "" : ": " + e.errorMessage());
                    };
            return e.path() + ": " + phrase + " (" + e.httpStatus() + ")";
        }
        if (t instanceof GrpcCallException e) {
            String code = e.code().name();
            String what =
                    switch (code) {
                        case "UNAUTHENTICATED" ->
                            "unauthenticated: missing or wrong token (use --token-file or SANDBOXD_TOKEN)";
                        default ->
                            e.description() != null && !e.description().isBlank()
                                    ? e.description()
                                    : code.toLowerCase(Locale.ROOT).replace('_', ' ');
                    };
            return what + " (" + code + ")";
        }
        if (t instanceof DaemonUnreachableException || t instanceof SandboxdException) {
            return t.getMessage();
        }
        if (t instanceof UncheckedIOException u) {
            return localReason(u.getCause());
        }
        if (t instanceof IOException io) {
            return localReason(io);
        }
        String m = t.getMessage();
        return "unexpected error" + (m == null || m.isBlank() ? "" : ": " + m);
    }

    /** A local file-system failure: {@code FILE: no such file or directory}. */
    static String localReason(IOException e) {
        if (e instanceof FileSystemException f) {
            String file = f.getFile() == null ? "" : f.getFile() + ": ";
            String why;
            if (e instanceof NoSuchFileException) {
                why = "no such file or directory";
            } else if (e instanceof AccessDeniedException) {
                why = "permission denied";
            } else if (e instanceof FileAlreadyExistsException) {
                why = "already exists";
            } else if (e instanceof DirectoryNotEmptyException) {
                why = "directory not empty";
            } else if (e instanceof NotDirectoryException) {
                why = "not a directory";
            } else {
                why = f.getReason() != null ? f.getReason() : "cannot access";
            }
            return file + why;
        }
        String m = e.getMessage();
        return m == null || m.isBlank() ? "input/output error" : m;
    }
}
