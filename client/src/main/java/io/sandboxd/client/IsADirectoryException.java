package io.sandboxd.client;

/** A file read ({@link SandboxdClient#read}) of a path that is a directory. */
public final class IsADirectoryException extends SandboxdException {
    private final String path;

    public IsADirectoryException(String path) {
        super(path + ": is a directory");
        this.path = path;
    }

    public String path() {
        return path;
    }
}
