package io.sandboxd.daemon.cli;

import java.net.BindException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;

/** Start-up failures in words an operator acts on: which listener, which address, why; never a Java class name. */
final class StartFailure {
    private StartFailure() {}

    /** Why {@code listener} (e.g. "REST") could not listen on host:port. */
    static String listener(String listener, String host, int port, Throwable e) {
        String where = listener + " listener " + host + ":" + port + ": ";
        // Jetty and NIO throw a BindException; Netty's epoll transport its own IOException whose
        // message carries the OS's "Address already in use".
        for (Throwable t = e; t != null; t = t.getCause()) {
            String m = t.getMessage() == null ? "" : t.getMessage();
            if (m.toLowerCase(java.util.Locale.ROOT).contains("already in use")) {
                return where + "address already in use (another process listens on port " + port + ")";
            }
        }
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof BindException b && b.getMessage() != null) {
                return where + "cannot bind (" + b.getMessage() + ")";
            }
        }
        return where + "cannot listen" + (e.getMessage() == null ? "" : " (" + e.getMessage() + ")");
    }

    /** The reason a file operation failed, as the OS says it. */
    static String io(Exception e) {
        if (e instanceof AccessDeniedException) {
            return "permission denied";
        }
        if (e instanceof NoSuchFileException) {
            return "a parent does not exist";
        }
        if (e instanceof NotDirectoryException) {
            return "a parent is not a directory";
        }
        if (e instanceof FileSystemException f && f.getReason() != null) {
            return f.getReason();
        }
        return e.getMessage() == null ? "cannot create it" : e.getMessage();
    }
}
