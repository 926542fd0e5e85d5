package io.sandboxd.daemon.cli;

import sun.misc.Signal;

/**
 * Handles SIGTERM/SIGINT ourselves instead of relying on JVM shutdown hooks: the hook path would
 * end the JVM with 143 and give in-flight streams no chance to receive their exit event. A second
 * signal while shutting down forces an immediate exit.
 */
final class ShutdownSignals {
    private ShutdownSignals() {
    }

    static void onTermination(Runnable gracefulShutdown) {
        java.util.concurrent.atomic.AtomicBoolean started = new java.util.concurrent.atomic.AtomicBoolean();
        sun.misc.SignalHandler handler = sig -> {
            if (!started.compareAndSet(false, true)) {
                Runtime.getRuntime().halt(130);
            }
            Thread t = new Thread(gracefulShutdown, "sandboxd-shutdown");
            t.start();
        };
        Signal.handle(new Signal("TERM"), handler);
        Signal.handle(new Signal("INT"), handler);
    }
}
