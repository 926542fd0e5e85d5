package io.sandboxd.daemon.process;

public enum OutputKind {
    STDOUT,
    STDERR
}
