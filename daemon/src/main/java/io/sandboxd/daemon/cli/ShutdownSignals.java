package io.sandboxd.daemon.cli;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import sun.misc.Signal;

/**
 * Handles SIGTERM/SIGINT ourselves instead of relying on JVM shutdown hooks: the hook path would
 * end the JVM with 143 and give in-flight streams no chance to receive their exit event.
 * Installed before the listeners start, so a signal that arrives during start-up is remembered
 * and honoured as soon as the daemon is up (it is never lost to the JVM's default handling). A
 * second signal while shutting down forces an immediate exit.
 */
final class ShutdownSignals {
    private final AtomicBoolean requested = new AtomicBoolean();
    private final AtomicBoolean dispatched = new AtomicBoolean();
    private final AtomicReference<Runnable> action = new AtomicReference<>();

    private ShutdownSignals() {}

    static ShutdownSignals install() {
        ShutdownSignals signals = new ShutdownSignals();
        sun.misc.SignalHandler handler = sig -> signals.onSignal();
        Signal.handle(new Signal("TERM"), handler);
        // Children never inherit an ignored SIGINT (nohup, `&`): the spawners reset every signal.
        Signal.handle(new Signal("INT"), handler);
        return signals;
    }

    /** Runs {@code gracefulShutdown} on the first signal, now if one already arrived. */
    void onTermination(Runnable gracefulShutdown) {
        action.set(gracefulShutdown);
        if (requested.get()) {
            dispatch();
        }
    }

    private void onSignal() {
        if (!requested.compareAndSet(false, true)) {
            Runtime.getRuntime().halt(130);
        }
        if (action.get() != null) {
            dispatch();
        }
    }

    private void dispatch() {
        if (dispatched.compareAndSet(false, true)) {
            new Thread(action.get(), "sandboxd-shutdown").start();
        }
    }
}
