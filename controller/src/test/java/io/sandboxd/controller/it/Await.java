package io.sandboxd.controller.it;

import java.time.Duration;
import java.util.function.Supplier;

/** Polls a condition with a generous deadline (the machine is shared and slow). */
final class Await {
    private Await() {}

    static final Duration DEFAULT = Duration.ofSeconds(60);

    static void until(String what, Supplier<Boolean> cond) {
        until(what, DEFAULT, cond);
    }

    static void until(String what, Duration timeout, Supplier<Boolean> cond) {
        until(what, timeout, 50, cond);
    }

    /** Larger intervals for conditions that list many objects (each poll loads the mock server). */
    static void until(String what, Duration timeout, long intervalMillis, Supplier<Boolean> cond) {
        long deadline = System.nanoTime() + timeout.toNanos();
        Throwable last = null;
        while (System.nanoTime() < deadline) {
            try {
                if (Boolean.TRUE.equals(cond.get())) return;
            } catch (RuntimeException | AssertionError e) {
                last = e;
            }
            try {
                Thread.sleep(intervalMillis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting for " + what);
            }
        }
        throw new AssertionError("timed out after " + timeout.toSeconds() + "s waiting for " + what, last);
    }
}
