package io.sandboxd.reliability.it;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Waits for a condition with a generous deadline instead of asserting on timing. */
final class Poll {
    private Poll() {
    }

    static boolean until(Duration timeout, BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            if (condition.getAsBoolean()) {
                return true;
            }
            if (System.nanoTime() > deadline) {
                return false;
            }
            sleep(100);
        }
    }

    /** Polls until the condition holds, else fails with the last description. */
    static void await(Duration timeout, BooleanSupplier condition, Supplier<String> whatFailed) {
        if (!until(timeout, condition)) {
            throw new AssertionError("not within " + timeout.toSeconds() + " s: " + whatFailed.get());
        }
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
