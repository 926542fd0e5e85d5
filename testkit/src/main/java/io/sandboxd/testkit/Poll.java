package io.sandboxd.testkit;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Waits for a condition with a generous deadline instead of asserting on timing. */
public final class Poll {
    private static final long INTERVAL_MS = 50;

    private Poll() {}

    /** True as soon as {@code condition} holds; false if it still does not at the deadline. */
    public static boolean until(Duration timeout, BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            if (condition.getAsBoolean()) {
                return true;
            }
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
            sleep(INTERVAL_MS);
        }
    }

    /** Like {@link #until}, but fails with {@code whatFailed} (evaluated at the deadline). */
    public static void await(Duration timeout, BooleanSupplier condition, Supplier<String> whatFailed) {
        if (!until(timeout, condition)) {
            throw new AssertionError("not within " + timeout.toMillis() + " ms: " + whatFailed.get());
        }
    }

    /** Sleeps; an interrupt is kept on the thread and rethrown unchecked. */
    public static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
