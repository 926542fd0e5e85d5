package io.sandboxd.client;

/** {@link SandboxdClient#list} of a path that is a file. */
public final class NotADirectoryException extends SandboxdException {
    private final String path;

    public NotADirectoryException(String path) {
        super(path + ": not a directory");
        this.path = path;
    }

    public String path() {
        return path;
    }
}
