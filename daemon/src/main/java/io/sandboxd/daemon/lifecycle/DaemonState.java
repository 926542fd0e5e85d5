package io.sandboxd.daemon.lifecycle;

import java.util.concurrent.atomic.AtomicBoolean;

/** Serving vs. shutting down, and uptime; read by health endpoints and the gRPC gate. */
public final class DaemonState {
    private final long startedNanos = System.nanoTime();
    private final AtomicBoolean shuttingDown = new AtomicBoolean();

    public boolean isServing() {
        return !shuttingDown.get();
    }

    /** @return true for the caller that flipped the state, false if shutdown had already begun */
    public boolean beginShutdown() {
        return shuttingDown.compareAndSet(false, true);
    }

    public long uptimeSeconds() {
        return (System.nanoTime() - startedNanos) / 1_000_000_000L;
    }
}
