package io.sandboxd.testkit;

import java.io.IOException;
import java.util.OptionalInt;

/** The daemon exited, or did not become ready in time; the message ends with the tail of its logs. */
public final class DaemonStartException extends IOException {
    private final OptionalInt exitCode;
    private final boolean portTaken;

    DaemonStartException(String message, OptionalInt exitCode, boolean portTaken) {
        super(message);
        this.exitCode = exitCode;
        this.portTaken = portTaken;
    }

    /** The daemon's exit code if it exited; empty if it was still running (not ready in time). */
    public OptionalInt exitCode() {
        return exitCode;
    }

    /** True if the daemon said a port was already in use. */
    public boolean portTaken() {
        return portTaken;
    }
}
