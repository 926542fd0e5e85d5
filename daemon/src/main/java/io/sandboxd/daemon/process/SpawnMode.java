package io.sandboxd.daemon.process;

public enum SpawnMode {
    PIPE,
    PTY;

    public String label() {
        return this == PIPE ? "pipe" : "pty";
    }
}
