package io.sandboxd.daemon.process;

public enum OutputKind {
    STDOUT, STDERR;

    public String label() {
        return this == STDOUT ? "stdout" : "stderr";
    }
}
